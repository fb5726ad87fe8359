#!/usr/bin/env bash
# One call on a GPU machine, in a fresh copy, run as a newcomer would (make builds everything it
# needs; nothing beyond the CUDA Toolkit, g++, make and python3): issue 19's figures.
#   1. `make solutionN` for every lab, its wall time, and its timing table: every GPU row (the
#      solution, the harness's naive kernel, CUB/cuBLAS, lab 9's ladder) timed one way, the
#      table's header saying how (checker/timing/baseline_timing.h).
#   2. The student's loop, edit -> result: touch the lab file, time `make labN` at a terminal
#      (script(1) gives make a pty, so the checker leaves out the expensive checks after a
#      failure, as it does for a student): every lab's stub (failing), then every lab with its
#      solution standing in for the stub (passing: every check, then the timing).
#   3. The checker's clock still bounds the runner's times (tests/gpu/timing_bound.sh).
# Prints the tables and wall times (also $OUT/tables.txt, $OUT/walls.txt); every log and JSON report
# goes into $OUT/logs.tar.gz.
#
#   OUT=/tmp/cudalab-timing tools/gpu/gpu_timing.sh
set -u
OUT=${OUT:-/tmp/cudalab-timing}
mkdir -p "$OUT/logs"
LOGS=$OUT/logs
WALLS=$LOGS/walls.txt
: > "$WALLS"
STASH=$(mktemp -d /tmp/cudalab-stubs.XXXXXX)

# The stubs, put back whatever happens (a stage killed mid-way never leaves labs/ solved).
restore_stubs() {
  for f in "$STASH"/*.cu; do
    [ -f "$f" ] && cp "$f" labs/ && rm -f "$f"
  done
}
finish() {
  restore_stubs
  python3 tools/measure/timing_tables.py "$LOGS" > "$OUT/tables.txt" 2>&1
  cat "$OUT/tables.txt"
  cp "$WALLS" "$OUT/walls.txt"
  # One archive (for tools that fetch few files); the tables and the wall times beside it.
  tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$LOGS"
}
trap finish EXIT
exec > >(tee "$LOGS/session.txt") 2>&1

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# wall LABEL LOG COMMAND...: runs it, its output to LOG, and records "LABEL: S s (exit RC)".
wall() {
  local label=$1 log=$2 start rc
  shift 2
  start=$(now_ms)
  "$@" > "$log" 2>&1
  rc=$?
  awk -v label="$label:" -v ms=$(( $(now_ms) - start )) -v rc=$rc 'BEGIN { printf "%-44s %6.2f s  (exit %s)\n", label, ms / 1000, rc }' |
    tee -a "$WALLS"
}
# At a terminal, as a student runs it (script -e returns the command's status).
at_terminal() {
  if command -v script > /dev/null; then script -qefc "$(printf '%q ' "$@")" /dev/null; else "$@"; fi
}

echo "== GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,persistence_mode --format=csv
wall "nvidia-smi -L (make runs it twice per call)" "$LOGS/nvidia_smi.log" nvidia-smi -L
command -v script > /dev/null || echo "no script(1) here: the loop times below are not at a terminal (every check runs)"

echo "== build (a fresh copy: the whole harness, every checker, solution and stub)"
targets=""
for n in 1 2 3 4 5 6 7 8 9; do
  ls solutions/lab${n}_*.cu > /dev/null 2>&1 && targets="$targets build/cuda/check/lab$n build/cuda/solutions/lab$n-runner build/cuda/labs/lab$n-runner"
done
wall "build" "$LOGS/build.log" make -j"$(nproc)" BACKEND=cuda $targets
grep -q "Error" "$LOGS/build.log" && tail -30 "$LOGS/build.log"
wall "make -q (make's own start, nothing to do)" "$LOGS/make_q.log" make -q BACKEND=cuda build/cuda/check/lab3

echo "== make solutionN (every check, then the timing)"
for n in 1 2 3 4 5 6 7 8 9; do
  ls solutions/lab${n}_*.cu > /dev/null 2>&1 || continue
  wall "make solution$n" "$LOGS/solution$n.log" make solution$n ARGS="--seed 2026 --json $LOGS/solution$n.json"
done

echo "== edit -> result: make labN after touching the file, at a terminal"
for n in 1 2 3 4 5 6 7 8 9; do
  ls labs/lab${n}_*.cu > /dev/null 2>&1 || continue
  touch labs/lab${n}_*.cu
  wall "make lab$n, the stub (failing)" "$LOGS/loop_stub$n.log" at_terminal make lab$n ARGS="--json $LOGS/loop_stub$n.json"
done
# As the issue measured it (output to a file: no terminal, so every check runs, the largest too).
touch labs/lab3_*.cu
wall "make lab3, the stub, every check (no terminal)" "$LOGS/loop_stub3_all.log" make lab3
for n in 1 2 3 4 5 6 7 8 9; do
  ls labs/lab${n}_*.cu solutions/lab${n}_*.cu > /dev/null 2>&1 || continue
  cp labs/lab${n}_*.cu "$STASH/"
  cp solutions/lab${n}_*.cu labs/ && touch labs/lab${n}_*.cu
  wall "make lab$n, solved (passing, timed)" "$LOGS/loop_solved$n.log" at_terminal make lab$n ARGS="--json $LOGS/loop_solved$n.json"
  restore_stubs
done

echo "== the checker's clock bounds the runner's times"
wall "tests/gpu/timing_bound.sh 3" "$LOGS/timing_bound.log" tests/gpu/timing_bound.sh 3
grep -E "^(PASS|FAIL)" "$LOGS/timing_bound.log"
