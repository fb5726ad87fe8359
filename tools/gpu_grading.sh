#!/usr/bin/env bash
# Grades a class of N lab 3 submissions on a GPU machine and reports the wall time, the score
# spread and how far apart identical kernels' speed ratios are (tools/class_figures.py).
# Run it again on the same machine to resume (the grader skips what is already graded).
# The grader's libraries travel in .carry/deps (Debian packages unpacked) when the machine
# lacks them: `tools/gpu_grading.sh 100 [time-limit-seconds]`.
set -u
n=${1:-100}
limit=${2:-540}
OUT=${OUT:-/tmp/cudalab-gpu}
mkdir -p "$OUT"
deps=$PWD/.carry/deps
if [ -d "$deps" ]; then
  export CPATH="$deps/usr/include:$deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
  libs="$deps/usr/lib/x86_64-linux-gnu/libcrypto.a -pthread -ldl"
else
  libs="-lcrypto -pthread"
fi
make -j16 BACKEND=cuda grader GRADING_LIBS="$libs" > "$OUT/grader_build.log" 2>&1 || { tail -30 "$OUT/grader_build.log"; exit 1; }
[ -d /tmp/class ] || tools/make_class.sh "$n" /tmp/class
start=$(date +%s)
timeout "$limit" ./build/grading/cudalab-grade --lab 3 --submissions /tmp/class --grades /tmp/grades --backend cuda \
  > "$OUT/grading.log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
prev=$(cat /tmp/grading_seconds 2>/dev/null || echo 0)
echo $(( prev + took )) > /tmp/grading_seconds
echo "grader exit $rc after $took s this call; $(( prev + took )) s in all"
tail -25 "$OUT/grading.log" | tr '\r' '\n' | tail -25
[ -f /tmp/grades/lab3/gradebook.csv ] && cp /tmp/grades/lab3/gradebook.csv "$OUT/" && \
  echo "gradebook rows: $(( $(wc -l < /tmp/grades/lab3/gradebook.csv) - 1 ))"
[ -f /tmp/grades/lab3/summary.json ] && cp /tmp/grades/lab3/summary.json "$OUT/" && \
  python3 tools/class_figures.py /tmp/grades/lab3
