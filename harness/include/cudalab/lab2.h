// Lab 2 contract: the contiguous-offset shared-memory sum in two launches.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab2` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab2::shared_sum
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab2 {

constexpr unsigned kBlockSize = 1024;
// The second launch is one block of kBlockSize threads summing the partials,
// so the first launch may have at most kBlockSize blocks: n <= kBlockSize^2.
constexpr size_t kMaxElements = size_t(kBlockSize) * kBlockSize;

constexpr size_t num_blocks(size_t n) { return (n + kBlockSize - 1) / kBlockSize; }

// First launch: block b writes the sum of elements [b*kBlockSize, ...) of d_in to d_block_sums[b].
// Second launch (one block): writes the sum of d_block_sums[0, num_blocks(n)) to d_sum[0].
// 1 <= n <= kMaxElements (the harness never asks for more).
void shared_sum(const float* d_in, float* d_block_sums, float* d_sum, size_t n);

}  // namespace lab2
