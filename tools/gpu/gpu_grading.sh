#!/usr/bin/env bash
# Grades a class of N lab 3 submissions on a GPU machine and reports the wall time, the score
# spread and how far apart identical kernels' speed ratios are (tools/measure/class_figures.py).
# Run it again on the same machine to resume (the grader skips what is already graded).
#
#   tools/gpu/gpu_grading.sh 100 [time-limit-seconds]      on the GPU, as root (each student jailed)
#   BACKEND=cpu tools/gpu/gpu_grading.sh 4                 the same path on the CPU backend, no GPU
#
# It works from a fresh copy (no build/ folder): it first builds the grader, the jail, lab 3's
# checker and everything a student's build needs (make grading-setup), and stops there, with
# the build's last lines, if that fails. The grader's libraries, and Boost.Context for the CPU
# build that judges barriers on a GPU too, travel in .carry/deps (Debian packages unpacked) when
# the machine lacks them. Where things go: CLASS (the submissions,
# made by tools/measure/make_class.sh when missing), GRADES, OUT (logs and the gradebook's copy).
set -u
cd "$(dirname "$0")/../.." || exit 1
n=${1:-100}
limit=${2:-540}
backend=${BACKEND:-cuda}
OUT=${OUT:-/tmp/cudalab-gpu}
CLASS=${CLASS:-/tmp/class}
GRADES=${GRADES:-/tmp/grades}
mkdir -p "$OUT"
deps=$PWD/.carry/deps
if [ -d "$deps" ]; then
  export CPATH="$deps/usr/include:$deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
  libs="$deps/usr/lib/x86_64-linux-gnu/libcrypto.a -pthread -ldl"
else
  libs="-lcrypto -pthread"
fi
build_start=$(date +%s)
# The link contract's judge first: both builds below use it, and two makes must not build one
# file at once. Then, on a GPU, the CPU backend under its race detector, whose emulator judges
# barriers and races (--emulator-verdicts auto: what the grader's setup would otherwise build
# first; Boost.Context from .carry/deps), side by side with the grader and lab 3's GPU harness:
# they share no other file.
make -j"$(nproc)" build/contract/cudalab-contract > "$OUT/grader_build.log" 2>&1 ||
  { tail -30 "$OUT/grader_build.log"; echo "gpu_grading: the link contract's judge does not build (log: $OUT/grader_build.log)"; exit 1; }
cpu_pid=""
if [ "$backend" = cuda ]; then
  make -j"$(nproc)" BACKEND=cpu CHECK=race lab-checker grading-runner-prereqs LAB=3 > "$OUT/emulator_build.log" 2>&1 &
  cpu_pid=$!
fi
make -j"$(nproc)" BACKEND="$backend" grading-setup LAB=3 GRADING_LIBS="$libs" >> "$OUT/grader_build.log" 2>&1 ||
  { tail -30 "$OUT/grader_build.log"; echo "gpu_grading: the grader's setup does not build (log: $OUT/grader_build.log)"; exit 1; }
if [ -n "$cpu_pid" ] && ! wait "$cpu_pid"; then
  tail -30 "$OUT/emulator_build.log"; echo "gpu_grading: the CPU backend does not build (Boost.Context?)"; exit 1
fi
built=$(( $(date +%s) - build_start ))
[ -d "$CLASS" ] || tools/measure/make_class.sh "$n" "$CLASS"
rm -f build/grading/lab3/timing-trace.log  # an earlier run's, which the summary below must not show
start=$(date +%s)
# GRADER_ARGS: more of the grader's options (--timing-trace: where each timing run's time goes,
# kept in $OUT/timing-trace.log).
# shellcheck disable=SC2086
timeout "$limit" ./build/grading/cudalab-grade --lab 3 --submissions "$CLASS" --grades "$GRADES" --backend "$backend" \
  ${GRADER_ARGS:-} > "$OUT/grading.log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
prev=$(cat "$GRADES/.grading_seconds" 2>/dev/null || echo 0)
mkdir -p "$GRADES" && echo $(( prev + took )) > "$GRADES/.grading_seconds"
echo "grader exit $rc after $took s this call; $(( prev + took )) s in all; the grader's own build took $built s" \
     "(end to end this call: $(( built + took )) s)"
tail -25 "$OUT/grading.log" | tr '\r' '\n' | tail -25
[ -f build/grading/lab3/timing-trace.log ] && cp build/grading/lab3/timing-trace.log "$OUT/" && \
  python3 tools/measure/timing_trace_summary.py build/grading/lab3/timing-trace.log
[ -f "$GRADES/lab3/gradebook.csv" ] && cp "$GRADES/lab3/gradebook.csv" "$OUT/" && \
  echo "gradebook rows: $(( $(wc -l < "$GRADES/lab3/gradebook.csv") - 1 ))"
[ -f "$GRADES/lab3/summary.json" ] && cp "$GRADES/lab3/summary.json" "$OUT/" && \
  python3 tools/measure/class_figures.py "$GRADES/lab3"
exit "$rc"
