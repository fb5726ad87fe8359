// Lab 7 contract: a grid-stride sum, one atomicAdd per block.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

namespace lab7 {

// Writes the sum of d_in[0, n) to d_sum[0]. Any n from 1 to 2^31.
// d_sum's contents on entry are garbage (the harness fills it with NaN): setting it to 0
// before the blocks add into it is your job. The order of the additions is yours, and it may
// change from run to run (float atomics): the checks allow any order your launch can produce.
void atomic_sum(const float* d_in, float* d_sum, size_t n);

}  // namespace lab7
