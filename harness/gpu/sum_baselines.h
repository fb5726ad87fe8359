// What the sum labs (1, 2, 3) are timed against, besides one CPU core.
#pragma once
#include <cstddef>

#include "timer.h"

namespace cudalab {

// The harness's own naive baseline: the in-place interleaved %-stride tree in global
// memory, 1024 threads a block, partial sums added by a second pass of the same kernel
// until one value remains. Works on a scratch copy of d_in (n floats + partials).
Timing time_naive_interleaved_sum(const float* d_in, size_t n);

// CUB's DeviceReduce::Sum, the vendor library's answer.
Timing time_cub_sum(const float* d_in, size_t n);

}  // namespace cudalab
