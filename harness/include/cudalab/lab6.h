// Lab 6 contract: a 256-bin histogram of bytes.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab6` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab6::histogram
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab6 {

constexpr unsigned kBins = 256;  // one bin per byte value

// Counts the bytes of d_in[0, n) by value: afterwards d_hist[v] is the number of i with
// d_in[i] == v, for every v in [0, 256). Any n from 1 to 2^32 - 1 (so every count fits in an
// unsigned). d_hist holds kBins counters whose contents on entry are garbage: setting them
// to 0 before counting is your job (the harness fills them with 0xFFFFFFFF).
void histogram(const unsigned char* d_in, unsigned* d_hist, size_t n);

}  // namespace lab6
