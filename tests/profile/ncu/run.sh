#!/bin/sh
# make test-profile, the GPU path offline: build/<backend>/check/profile-ncu over two real Nsight
# Compute raw pages (ncu --csv --page raw --print-units base, from tools/gpu/gpu_profile.sh on an H200,
# before the NVTX range: the harness's own kernels and the checker's are in them). The lab's
# kernels must be found beside them (the runner of a variant is not named "...runner"), the GPU
# named as the report names it, and the launch figures read from the sections' columns.
# Usage: tests/profile/ncu/run.sh PROFILE_NCU
digest=${1:-build/cpu/check/profile-ncu}
dir=$(dirname "$0")
fail=0
expect() {  # NAME WORDS OUTPUT
  case "$3" in
    *"$2"*) echo "PASS  profile-ncu $1: \"$2\"" ;;
    *) echo "FAIL  profile-ncu $1: wanted \"$2\" in:"; echo "$3"; fail=1 ;;
  esac
}
out=$("$digest" --elements 67108864 --yours "$dir/lab1_one_thread_per_block.csv" --reference "$dir/solution3.csv")
expect "lab 1 variant found" "divergent warps are the limiter, at kernel serial_block_kernel" "$out"
expect "the GPU's own name" "Measured on the NVIDIA H200 with Nsight Compute" "$out"
expect "launch figures" "blocks in the largest launch           65536          8192" "$out"
out=$("$digest" --elements 67108864 --yours "$dir/solution3.csv" --reference "$dir/solution3.csv")
expect "reference against itself" "nothing stands out" "$out"
expect "harness kernels left out" "most sampled stall (first kernel)      barrier" "$out"
# Lab 3's float-load variant against lab 3's reference at the same size (both from one H200 run,
# only the lab's kernels in them): 4 sectors per load request against 16, where the lanes at the
# loads, estimated from the kernel's predicated-on share, put a float at 4.2 bytes a lane.
out=$("$digest" --elements 16777216 --yours "$dir/lab3_float_loads.csv" --reference "$dir/lab3_reference_16m.csv")
expect "lab 3 float loads named" "narrow loads are the limiter, at kernel float_level_kernel: each thread loads 4 bytes at a time, so a warp issues 4 times" "$out"
out=$("$digest" --elements 16777216 --yours "$dir/lab3_reference_16m.csv" --reference "$dir/lab3_reference_16m.csv")
expect "lab 3 reference against itself" "nothing stands out" "$out"
# Lab 2's `%`-stride variant (its reference's report was not kept): 75% of lanes predicated on,
# above the 70% limit, but 61% of its shared-memory instructions still have a lane at work, so
# its idle lanes are spread over working warps (0.15). Against lab 3's reference (0.09, float4
# loads: narrow loads come first there) divergence is among the findings; against itself, quiet.
out=$("$digest" --elements 1048576 --yours "$dir/lab2_modulo_stride.csv" --reference "$dir/lab3_reference_16m.csv")
expect "lab 2 idle lanes spread over working warps" "idle lanes in working warps (GPU)      0.15           0.09" "$out"
expect "lab 2 divergence found" "Also worse than the reference: divergent warps" "$out"
out=$("$digest" --elements 1048576 --yours "$dir/lab2_modulo_stride.csv" --reference "$dir/lab2_modulo_stride.csv")
expect "lab 2 variant against itself" "nothing stands out" "$out"
# --multiply-adds (labs 5 and 9) adds data reuse's rows; lab 3's reports have no SASS byte counters,
# so it rests on their lines (a GPU's report of a product, with those counters: tests/unit).
out=$("$digest" --elements 16777216 --multiply-adds 16777216 --yours "$dir/lab3_reference_16m.csv" --reference "$dir/lab3_reference_16m.csv")
expect "multiply-adds read" "global values loaded per multiply-add" "$out"
expect "multiply-adds, reference against itself" "nothing stands out" "$out"
exit $fail
