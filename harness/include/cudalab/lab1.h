// Lab 1 contract: the naive interleaved sum.
// The lab file defines lab1::block_sums; the harness (harness/suites/lab1_*) calls it.
#pragma once
#include <cstddef>
#include "cudalab/launch_check.h"

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
