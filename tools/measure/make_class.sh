#!/usr/bin/env bash
# Makes a class of N lab 3 submissions (one folder per student) for timing the grader at
# scale: mostly correct copies of the reference (identical kernels: their speed ratios show
# the timing's noise), slower correct variants spread along the speed scale, stubs, wrong
# answers and compile errors, each file with its own content.
#
#   tools/measure/make_class.sh 100 /tmp/class
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
  # Slower variants: fewer loads in flight per thread, smaller blocks (more levels, more launches).
  vary() { sed -e "s/^constexpr unsigned kThreads = 256;/constexpr unsigned kThreads = $1;/" \
               -e "s/^constexpr unsigned kVecPerThread = 8;/constexpr unsigned kVecPerThread = $2;/" "$sol"; }
  case $(( i % 10 )) in
    0) cp "$stub" "$f" ;;                                                   # handed in the stub
    1) cp tests/fixtures/lab3_one_level_only.cu "$f" ;;                     # a wrong answer
    2) vary 256 1 > "$f" ;;                                                 # correct, slower
    3) if (( i % 20 == 3 )); then sed 's/^constexpr unsigned kThreads = 256;/constexpr unsigned kThreads = 256/' "$sol" > "$f"; else vary 256 2 > "$f"; fi ;;  # compile errors; a bit slower
    4) vary 64 1 > "$f" ;;                                                  # much slower
    5) vary 32 1 > "$f" ;;                                                  # slowest: one warp per block
    *) cp "$sol" "$f" ;;                                                    # the reference's kernel
  esac
  echo "// $s" >> "$f"   # every submission differs, as real ones do
done
echo "$n submissions in $dir"
