// What lab 8's top-k is timed against, besides one CPU core.
#pragma once
#include <cstddef>

#include "timer.h"

namespace cudalab {

// The harness's naive kernel: k passes over all n values, each finding the next element in
// lab 8's order with one 64-bit atomicMax per block (value's order-preserving bits above the
// complemented index), then the first k read back in order.
Timing time_naive_top_k(const float* d_values, size_t n, int k);

// The vendor way (CUB has no top-k): DeviceRadixSort::SortPairsDescending of every (value,
// index) pair, then the first k. The sort is stable, so equal values keep ascending indices,
// as lab 8's order wants (only -0.0 and +0.0 it treats as different). n <= 2^31 - 1.
Timing time_cub_sort_top_k(const float* d_values, size_t n, int k);

}  // namespace cudalab
