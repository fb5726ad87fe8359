// Lab 9 contract: a fast SGEMM, C = A B in FP32, climbing toward cuBLAS.
//
// The same product as lab 5 (row-major; A is M x K, B is K x N, C is M x N; any M, N, K >= 1,
// odd sizes and sizes that are no multiple of any tile included), so the harness checks it
// the same way. What changes is the speed expected of it, and so the kernel's shape: one
// block computes a kBlockM x kBlockN tile of C from kBlockK-wide slices of A and B, and each
// of its kThreads threads computes kThreadM x kThreadN elements of that tile in registers.
#pragma once
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab9` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab9::sgemm
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab9 {

// Block (blockIdx.x, blockIdx.y) computes the kBlockM x kBlockN tile of C whose top-left
// element is (blockIdx.y * kBlockM, blockIdx.x * kBlockN). The harness's messages name the
// block that owns a wrong element by this mapping.
constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
// The slice of k one pass of the main loop brings into shared memory.
constexpr int kBlockK = 16;
// Each thread's own patch of C, held in registers: 16 rows by 8 columns, so a block's 256
// threads (eight warps, each a 64 x 64 warp tile) cover its tile.
constexpr int kThreadM = 16;
constexpr int kThreadN = 8;
constexpr int kThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);  // 256

// C = A B, all row-major: A is M x K, B is K x N, C is M x N. Any M, N, K >= 1.
void sgemm(const float* d_A, const float* d_B, float* d_C, int M, int N, int K);

}  // namespace lab9
