// Lab 4 contract: the padded-tile transpose.
#pragma once
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab4` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab4::transpose
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab4 {

// Each block transposes one kTile x kTile tile with kTile x kBlockRows threads,
// so each thread moves kTile / kBlockRows elements.
constexpr int kTile = 32;
constexpr int kBlockRows = 8;

// d_in is rows x cols, row-major. Writes its transpose, cols x rows row-major, to d_out.
// Any rows, cols >= 1 (with rows * cols < 2^31).
void transpose(const float* d_in, float* d_out, int rows, int cols);

}  // namespace lab4
