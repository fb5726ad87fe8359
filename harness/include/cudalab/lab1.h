// Lab 1 contract: the naive interleaved sum.
// The lab file defines lab1::block_sums; the harness (harness/lab_specs/lab1/) calls it.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab1` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab1::block_sums
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab1 {

// Threads per block. Fixed, so that the harness knows which block owns which element.
constexpr unsigned kBlockSize = 1024;

constexpr size_t num_blocks(size_t n) { return (n + kBlockSize - 1) / kBlockSize; }

// Sums d_data[0, n) block by block, in place in global memory (d_data may be overwritten).
// Afterwards d_block_sums[b] holds the sum of elements [b*kBlockSize, min((b+1)*kBlockSize, n)),
// for every b < num_blocks(n). The harness adds the block sums on the host.
// n is at least 1 and at most 2^30.
void block_sums(float* d_data, float* d_block_sums, size_t n);

}  // namespace lab1
