#!/bin/sh
# make test-profile, the GPU path offline: build/<backend>/check/profile-ncu over two real Nsight
# Compute raw pages (ncu --csv --page raw --print-units base, from tools/gpu_profile.sh on an H200,
# before the NVTX range: the harness's own kernels and the checker's are in them). The lab's
# kernels must be found beside them (the runner of a variant is not named "...runner"), the GPU
# named as the report names it, and the launch figures read from the sections' columns.
# Usage: tests/profile/ncu/run.sh PROFILE_NCU
digest=${1:-build/cpu/check/profile-ncu}
dir=$(dirname "$0")
fail=0
expect() {  # NAME WORDS OUTPUT
  case "$3" in
    *"$2"*) echo "PASS profile-ncu $1: \"$2\"" ;;
    *) echo "FAIL profile-ncu $1: wanted \"$2\" in:"; echo "$3"; fail=1 ;;
  esac
}
out=$("$digest" --elements 67108864 --yours "$dir/lab1_one_thread_per_block.csv" --reference "$dir/solution3.csv")
expect "lab 1 variant found" "divergent warps are the limiter, at kernel serial_block_kernel" "$out"
expect "the GPU's own name" "Measured on the NVIDIA H200 with Nsight Compute" "$out"
expect "launch figures" "blocks in the largest launch           65536          8192" "$out"
out=$("$digest" --elements 67108864 --yours "$dir/solution3.csv" --reference "$dir/solution3.csv")
expect "reference against itself" "nothing stands out" "$out"
expect "harness kernels left out" "most sampled stall (first kernel)      barrier" "$out"
exit $fail
