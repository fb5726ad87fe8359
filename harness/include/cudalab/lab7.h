// Lab 7 contract: a grid-stride sum, one atomicAdd per block.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab7` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab7::atomic_sum
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab7 {

// Writes the sum of d_in[0, n) to d_sum[0]. Any n from 1 to 2^31.
// d_sum's contents on entry are garbage (the harness fills it with NaN): setting it to 0
// before the blocks add into it is your job. The order of the additions is yours, and it may
// change from run to run (float atomics): the checks allow any order your launch can produce.
void atomic_sum(const float* d_in, float* d_sum, size_t n);

}  // namespace lab7
