#!/usr/bin/env bash
# The lent inputs on a GPU (checker/calls/device_inputs.h), in one call from a fresh copy:
# every lab's reference solution checked (`make solutionN ARGS=--no-timing`, the filter on),
# then the boundary's stages (tools/gpu/gpu_boundary.sh: the student loop here and in BASE, the
# attacks and honest files).
#   OUT=/tmp/out [BASE=.carry/base] [LABS="1 2 ..."] [STAGES="loop boundary"] tools/gpu/gpu_inputs.sh
set -u
OUT=${OUT:-/tmp/cudalab-inputs}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.." || exit 1
start=$(date +%s)
make -j"$(nproc)" cuda-build-all > "$OUT/build.txt" 2>&1 || { tail -30 "$OUT/build.txt"; echo "gpu_inputs: the build failed"; exit 1; }
echo "built every lab in $(( $(date +%s) - start )) s"
for lab in ${LABS:-1 2 3 4 5 6 7 8 9}; do
  start=$(date +%s%N)
  make solution"$lab" ARGS=--no-timing > "$OUT/solution$lab.txt" 2>&1
  rc=$?
  printf 'solution%s: exit %s in %s ms: %s\n' "$lab" "$rc" "$(( ($(date +%s%N) - start) / 1000000 ))" \
    "$(grep -E 'checks passed' "$OUT/solution$lab.txt" | tail -1 | sed 's/^ *//')"
  [ "$rc" = 0 ] || tail -30 "$OUT/solution$lab.txt"
done
OUT=$OUT STAGES=${STAGES:-loop boundary} tools/gpu/gpu_boundary.sh
