// Lab 8 contract: the k largest of n floats, with their indices.
//
// THE ORDER. Element i comes before element j when d_values[i] > d_values[j], or when the
// two values are equal and i < j (a tie goes to the lower index). Every element has its own
// place in this order, so the answer is unique. Equality is float equality: -0.0 and +0.0
// are equal (the lower index wins). Values may be negative and may be +-infinity; they are
// never NaN (the checks never pass one, and what a NaN would do is not defined).
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

// The link contract (docs/link_contract.md), checked on your compiled file by `make lab8` and
// by the grader: your file defines the function below, its kernels and helpers of its own, and
// calls only the launch machinery, device code, printf, math and these runtime calls. Copies
// to or from the host, events, streams, the driver API and the operating system are not on it:
// the harness moves the data and times your function.
// cudalab-defines: lab8::top_k
// cudalab-may-call: cudaMalloc cudaFree cudaMemset cudaMemsetAsync cudaGetLastError cudaPeekAtLastError cudaDeviceSynchronize cudaGetDevice cudaDeviceGetAttribute cudaGetDeviceProperties* cudaOccupancy* cudaFuncGetAttributes cudaFuncSetAttribute cudaGetErrorString cudaGetErrorName
namespace lab8 {

constexpr int kMaxK = 256;  // k from 1 to kMaxK (and at most n)
constexpr size_t kMaxN = (size_t(1) << 31) - 1;  // every index fits in an int

// Scratch the harness hands you, in floats for d_scratch_values and as many ints for
// d_scratch_indices: two regions of ceil(n / 1024) + 1 lists of k candidates, so any level
// whose blocks each turn at least 1024 elements into k candidates fits, ping-ponging between
// the two. Its contents on entry are garbage.
constexpr size_t scratch_elements(size_t n, int k) { return 2 * ((n + 1023) / 1024 + 1) * size_t(k) + 1024; }

// Writes the first k elements of d_values[0, n) in the order above: d_top_values[r] and
// d_top_indices[r] are the value and the index of the element in place r, for r in [0, k).
// So the values come out descending, and equal values by ascending index.
// 1 <= n <= kMaxN, 1 <= k <= min(n, kMaxK); k = n is allowed.
void top_k(const float* d_values, float* d_scratch_values, int* d_scratch_indices, float* d_top_values,
           int* d_top_indices, size_t n, int k);

}  // namespace lab8
