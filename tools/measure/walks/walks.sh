#!/usr/bin/env bash
# The walk measure (issue 32): follow the code as it runs and count how often a call goes back
# into a file the walk had left, one still open up the call stack (A calls into B, and B, or
# something B calls, calls into A again: to read B you must go back to A). Two walks:
#   - a submission through the checker: lab 3's checker, every check of the reference solution
#     (seed 1, no timing), on the CPU backend;
#   - the grader's configuration through the grader: a class of one student (lab 1's `correct`
#     fixture) graded on the CPU backend, from the command line to the gradebook (as root: the
#     student is jailed).
# Each program is built again into OUT with g++'s -finstrument-functions and tracer.c, which
# records the main thread's calls; walk.py reads the trace against the tree's files (a
# compiler-made constructor or destructor is no one's code to read and is left out; a lambda
# called back from below is the caller's own code, read where it is written, and counted apart).
#
#   tools/measure/walks/walks.sh [OUT]      (OUT: /tmp/cudalab-walks; from the repository's root)
# Prints each walk's counts; --show after OUT lists the call sites that return.
set -u
cd "$(dirname "$0")/../../.." || exit 2
out=${1:-/tmp/cudalab-walks}
show=${2:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
gcc -O2 -c tools/measure/walks/tracer.c -o "$out/tracer.o" || exit 2
traced="-finstrument-functions -finstrument-functions-exclude-file-list=/usr/ $out/tracer.o -ldl"

echo "== a submission through the checker (lab 3, the reference solution, seed 1)"
make -s -j"$(nproc)" BACKEND=cpu build/cpu/solutions/lab3-runner >/dev/null || exit 2
make -s -j"$(nproc)" CPU_OUT="$out/cpu" CPU_CXX="g++ $traced" "$out/cpu/check/lab3" 2>&1 |
  grep -v "linker input file unused" >&2
rm -f "$out"/checker.trace.*
WALK_TRACE=$out/checker.trace "$out/cpu/check/lab3" --runner build/cpu/solutions/lab3-runner --seed 1 --no-timing \
  >"$out/checker.log" 2>&1 || { echo "the traced checker failed: $out/checker.log"; tail -5 "$out/checker.log"; }
python3 tools/measure/walks/walk.py "$out/cpu/check/lab3" "$(ls -S "$out"/checker.trace.* | head -n1)" . $show

echo "== the grader's configuration through the grader (a class of one, lab 1, CPU backend)"
if [ "$(id -u)" != 0 ]; then
  echo "skipped: the grader jails each student, which needs root"
  exit 0
fi
grading_cxx="g++ -std=c++20 -O2 -g -Wall -Wextra -MMD -MP $traced"
make -s -j"$(nproc)" jail build/cpu/check/lab1 >/dev/null || exit 2
make -s -j"$(nproc)" GRADING_OUT="$out/grading" GRADING_CXX="$grading_cxx" "$out/grading/cudalab-grade" 2>&1 |
  grep -v "linker input file unused" >&2
rm -rf "$out/class" "$out/grades" "$out/work" "$out"/grader.trace.*
mkdir -p "$out/class"
cp -r tests/grading/fixtures/lab1/correct "$out/class/"
WALK_TRACE=$out/grader.trace "$out/grading/cudalab-grade" --lab 1 --submissions "$out/class" \
  --grades "$out/grades" --backend cpu --work "$out/work" >"$out/grader.log" 2>&1 ||
  { echo "the traced grader failed: $out/grader.log"; tail -5 "$out/grader.log"; }
# The grader's own process: the largest trace (its children exec other programs at once).
python3 tools/measure/walks/walk.py "$out/grading/cudalab-grade" "$(ls -S "$out"/grader.trace.* | head -n1)" . $show
