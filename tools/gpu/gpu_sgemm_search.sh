#!/usr/bin/env bash
# Issue 34, lab 9: one call on a GPU machine (H100), in a fresh copy of the repository.
#   1. Builds tools/measure/bench_steps/lab9_search (nvcc -arch=sm_90, -lcublas): the lab-9 kernel family's
#      candidates compiled in 16 parts at once, plus solutions/lab9_sgemm.cu as it is; and, at the
#      same time, `make solution9`'s programs.
#   2. Runs the search: cuBLAS, the solution in place, the ladder's rungs and every candidate at
#      4096^3, 1024^3 and 4096 x 2048 x 1000, each checked against cuBLAS; tables sorted by TFLOP/s.
#      A candidate that breaks the GPU context ends the program; it starts again after that one.
#   3. `make solution9`: the harness's own checks and timing of the solution (its TFLOP/s and % of
#      cuBLAS measured the harness's way, the ladder's rungs 0-4 beside it).
# Everything goes to $OUT: search.txt (the tables), solution9.txt, build logs with ptxas's
# register and spill counts (ptxas/), results.txt (one line per measurement), session.txt (all of it).
#
#   OUT=/tmp/sgemm tools/gpu/gpu_sgemm_search.sh
set -u
OUT=${OUT:-/tmp/cudalab-sgemm-search}
mkdir -p "$OUT/ptxas"
exec > >(tee "$OUT/session.txt") 2>&1
JOBS=$(nproc)
BUILD=build/bench/lab9_search
mkdir -p "$BUILD"
NVCC=${NVCC:-nvcc}
FLAGS=(-std=c++20 -O3 -arch=sm_90 -lineinfo -Itools/measure/bench_steps -Iharness/include -Xptxas -v)
PARTS=16

echo "== GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,persistence_mode --format=csv
"$NVCC" --version | tail -1

echo "== build (parts at once: $PARTS, and make solution9's programs)"
start=$(date +%s)
# make solution9's build beside the search's; nothing of it runs yet (its checker needs the GPU alone).
( make -j"$JOBS" build/cuda/check/lab9 build/cuda/solutions/lab9-runner > "$OUT/solution9_build.log" 2>&1;
  echo "make solution9 build: exit $?" >> "$OUT/solution9_build.log" ) &
make_pid=$!
pids=()
for p in $(seq 0 $((PARTS - 1))); do
  "$NVCC" "${FLAGS[@]}" -DPART="$p" -DPARTS="$PARTS" -c tools/measure/bench_steps/lab9_search_part.cu \
    -o "$BUILD/part$p.o" > "$OUT/ptxas/part$p.txt" 2>&1 &
  pids+=($!)
done
"$NVCC" "${FLAGS[@]}" -c solutions/lab9_sgemm.cu -o "$BUILD/solution.o" > "$OUT/ptxas/solution.txt" 2>&1 &
pids+=($!)
"$NVCC" "${FLAGS[@]}" -c tools/measure/bench_steps/lab9_search.cu -o "$BUILD/main.o" > "$OUT/ptxas/main.txt" 2>&1 &
pids+=($!)
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if [ $failed != 0 ]; then
  echo "build FAILED:"; grep -h -B2 -A5 "error" "$OUT"/ptxas/*.txt | head -60
else
  "$NVCC" -arch=sm_90 "$BUILD"/part*.o "$BUILD/solution.o" "$BUILD/main.o" -lcublas -o "$BUILD/lab9_search" || failed=1
fi
echo "search built in $(( $(date +%s) - start )) s (exit $failed)"
# Spills, from ptxas: any candidate that spills is named here.
grep -h "bytes spill stores" "$OUT"/ptxas/*.txt | grep -v " 0 bytes spill stores, 0 bytes spill loads" | sort | uniq -c | head -20

if [ $failed = 0 ]; then
  echo "== search"
  RESULTS=$OUT/results.txt
  : > "$RESULTS"
  from=-1
  # Start again after a candidate that breaks the context, at most 8 times.
  for attempt in 1 2 3 4 5 6 7 8; do
    "$BUILD/lab9_search" --from "$from" --results "$RESULTS" 2> "$OUT/search_stderr_$attempt.txt" | tee "$OUT/search_$attempt.txt"
    rc=${PIPESTATUS[0]}
    [ "$rc" = 0 ] && break
    last=$(grep '^START' "$OUT/search_stderr_$attempt.txt" | tail -1 | awk '{print $2}')
    echo "search stopped (exit $rc) in candidate $last:"; grep -v '^START' "$OUT/search_stderr_$attempt.txt" | tail -5
    [ -z "$last" ] && break
    from=$((last + 1))
  done
  # The tables alone (the last attempt printed them from every attempt's results).
  sed -n '/^params:/,$p' "$OUT/search_$attempt.txt" > "$OUT/search.txt"
fi
wait "$make_pid"
tail -1 "$OUT/solution9_build.log"

echo "== make solution9"
start=$(date +%s)
make solution9 ARGS="--seed 2026" > "$OUT/solution9.txt" 2>&1
echo "make solution9: exit $? in $(( $(date +%s) - start )) s"
cat "$OUT/solution9.txt" | tail -40
