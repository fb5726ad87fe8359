#!/usr/bin/env bash
# Makes a class of N lab 3 submissions (one folder per student) for timing the grader at
# scale: mostly correct copies of the reference (some slower variants), stubs, wrong
# answers and compile errors, each with its own content.
#
#   tools/make_class.sh 100 /tmp/class
set -eu
n=${1:-100}
dir=${2:-/tmp/class}
rm -rf "$dir"
mkdir -p "$dir"
sol=$(ls solutions/lab3_*.cu)
stub=$(ls labs/lab3_*.cu)
for i in $(seq 1 "$n"); do
  s=$(printf 'student%03d' "$i")
  mkdir -p "$dir/$s"
  f="$dir/$s/$(basename "$sol")"
  case $(( i % 10 )) in
    0) cp "$stub" "$f" ;;                                                   # handed in the stub
    1) cp tests/fixtures/lab3_one_level_only.cu "$f" ;;                     # a wrong answer
    2) sed 's/kVecPerThread = 8;/kVecPerThread = 1;/' "$sol" > "$f" ;;      # correct, slower
    3) if (( i % 20 == 3 )); then sed 's/^constexpr unsigned kThreads = 256;/constexpr unsigned kThreads = 256/' "$sol" > "$f"; else cp "$sol" "$f"; fi ;;  # some compile errors
    *) cp "$sol" "$f" ;;
  esac
  echo "// $s" >> "$f"   # every submission differs, as real ones do
done
echo "$n submissions in $dir"
