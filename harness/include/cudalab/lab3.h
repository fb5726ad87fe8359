// Lab 3 contract: a multi-level sum with no size limit.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab3` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab3::multilevel_sum
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab3 {

// Floats of scratch space the harness hands you for partial sums: room for every
// level as long as each block of a level reduces at least 32 values. The levels can
// sit one after another in it, or ping-pong between two halves.
constexpr size_t scratch_elements(size_t n) { return n / 16 + 1024; }

// Writes the sum of d_in[0, n) to d_sum[0]. Any n from 1 to 2^31.
// d_scratch holds scratch_elements(n) floats; its contents on entry are garbage.
void multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n);

}  // namespace lab3
