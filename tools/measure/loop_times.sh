#!/usr/bin/env bash
# The student's loop on a GPU machine, in wall seconds, as a student sees it (issue 19: a passing
# `make labN` answers in 6 s or less, a failing one in 3 s after an edit). From a fresh copy, in the
# repository root:
#   tools/measure/loop_times.sh            every lab (about 5 minutes on an H100 with 16 cores)
#   tools/measure/loop_times.sh 4 6 8      those labs only
# First it builds every checker and runner it will run (CUDA backend; make builds what it needs),
# untimed. Then, per lab, each run timed alone:
#   make solutionN        the reference solution: every check passes, then the timing
#   make labN             the stub as shipped: checks fail, no timing
#   touch, make labN      edit -> result: the stub touched, so make compiles it, links the runner
#                         and runs the checks again
# Runs go through script(1), which gives make a terminal: at a terminal the checker leaves out
# the expensive checks once a check has failed, as it does for a student (README: "Fail fast").
# Each run's output is kept in $OUT (default /tmp/cudalab-loop), one log per run.
set -u
OUT=${OUT:-/tmp/cudalab-loop}
LABS=${*:-1 2 3 4 5 6 7 8 9}
mkdir -p "$OUT"

if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "tools/measure/loop_times.sh: no GPU answers nvidia-smi here; these are GPU times (make labN runs the CPU backend without one)"
  exit 2
fi
if ! command -v script > /dev/null; then
  echo "tools/measure/loop_times.sh: script(1) (util-linux) is missing: runs would not be at a terminal, and every check would run"
  exit 2
fi

# The labs that exist in this copy, each with its stub and its solution.
present=""
for n in $LABS; do
  if ls labs/lab"${n}"_*.cu solutions/lab"${n}"_*.cu > /dev/null 2>&1; then present="$present $n"
  else echo "lab $n: no labs/lab${n}_*.cu or solutions/lab${n}_*.cu here, left out"; fi
done

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# timed LOG COMMAND...: runs the command at a terminal, its output into LOG; prints "SECONDS STATUS".
timed() {
  local log=$1 start rc
  shift
  start=$(now_ms)
  script -qefc "$(printf '%q ' "$@")" /dev/null > "$log" 2>&1
  rc=$?
  awk -v ms=$(( $(now_ms) - start )) -v rc=$rc 'BEGIN { printf "%.2f %d", ms / 1000, rc }'
}

echo "== build (untimed): the checkers, the baseline runners, every solution's and stub's runner"
targets=""
for n in $present; do
  targets="$targets build/cuda/check/lab$n build/cuda/solutions/lab$n-runner build/cuda/labs/lab$n-runner"
done
build_start=$(now_ms)
if ! make -j"$(nproc)" BACKEND=cuda $targets > "$OUT/build.log" 2>&1; then
  tail -30 "$OUT/build.log"
  echo "tools/measure/loop_times.sh: the build failed ($OUT/build.log)"
  exit 1
fi
echo "   built in $(( ($(now_ms) - build_start) / 1000 )) s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

# A run's cell: its seconds, and its status when it is not the one expected.
cell() {
  local seconds=$1 rc=$2 want=$3 note=""
  if { [ "$want" = pass ] && [ "$rc" -ne 0 ]; } || { [ "$want" = fail ] && [ "$rc" -eq 0 ]; }; then
    note="(exit $rc!)"
  fi
  printf '%8s s %-12s' "$seconds" "$note"
}

echo
printf '%-4s %-23s %-23s %-23s\n' lab "make solutionN: passes" "make labN: stub fails" "touch, make labN"
unexpected=0
for n in $present; do
  read -r s_sec s_rc <<< "$(timed "$OUT/solution$n.log" make BACKEND=cuda solution"$n")"
  read -r l_sec l_rc <<< "$(timed "$OUT/lab$n.log" make BACKEND=cuda lab"$n")"
  touch labs/lab"${n}"_*.cu
  read -r e_sec e_rc <<< "$(timed "$OUT/edit$n.log" make BACKEND=cuda lab"$n")"
  [ "$s_rc" -ne 0 ] || [ "$l_rc" -eq 0 ] || [ "$e_rc" -eq 0 ] && unexpected=1
  printf '%-4s %s %s %s\n' "$n" "$(cell "$s_sec" "$s_rc" pass)" "$(cell "$l_sec" "$l_rc" fail)" "$(cell "$e_sec" "$e_rc" fail)"
done
echo
# What each passing run measured (its first timing row), so a run that skipped or refused its
# timing cannot pass for a fast one.
for n in $present; do
  row=$(sed 's/\x1b\[[0-9;]*m//g' "$OUT/solution$n.log" | grep -m1 -E "^  (your|timing: )" | tr -s ' ')
  echo "lab $n solution: ${row:-no timing row}"
done
tar -czf "$OUT/logs.tar.gz" -C "$OUT" --exclude logs.tar.gz . 2>/dev/null
echo "logs: $OUT (solutionN.log, labN.log, editN.log, build.log; all in logs.tar.gz)"
[ "$unexpected" -eq 0 ] || echo "exit! marks a run that did not end as expected: a solution that failed, or a stub that passed (labs/ solved?)"
