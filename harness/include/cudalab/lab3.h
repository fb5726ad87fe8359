// Lab 3 contract: a multi-level sum with no size limit.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

namespace lab3 {

// Floats of scratch space the harness hands you for partial sums: room for every
// level as long as each block of a level reduces at least 32 values. The levels can
// sit one after another in it, or ping-pong between two halves.
constexpr size_t scratch_elements(size_t n) { return n / 16 + 1024; }

// Writes the sum of d_in[0, n) to d_sum[0]. Any n from 1 to 2^31.
// d_scratch holds scratch_elements(n) floats; its contents on entry are garbage.
void multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n);

}  // namespace lab3
