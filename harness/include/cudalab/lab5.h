// Lab 5 contract: the bounds-checked tiled matrix product.
#pragma once
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab5` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab5::matmul
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab5 {

// One block of kTile x kTile threads computes one kTile x kTile tile of C.
constexpr int kTile = 32;

// C = A B, all row-major: A is M x K, B is K x N, C is M x N. Any M, N, K >= 1.
void matmul(const float* d_A, const float* d_B, float* d_C, int M, int N, int K);

}  // namespace lab5
