// Honest code the contract must accept: lab 3's reference solution with its kernel written
// with cooperative groups (this_thread_block, tiled_partition<32>, cg::reduce, block.sync(),
// the tiles' meta-group ranks) instead of raw shuffles and __syncthreads(). A correct lab 3 on
// both backends (make cpu-lab-runner LAB=3 SRC=this file).
// expect-exit: 0
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cudalab/lab3.h"

namespace cg = cooperative_groups;

constexpr unsigned kThreads = 256;      // threads per block (a multiple of 32)
constexpr unsigned kVecPerThread = 8;   // float4 loads per thread, all issued before any is used
constexpr size_t kPerBlock = size_t(kThreads) * kVecPerThread * 4;  // elements per block: 8192

// How many blocks (and so partial sums) a level over m values has.
static size_t blocks_for(size_t m) { return (m + kPerBlock - 1) / kPerBlock; }

// This thread's share of in[0, n): its kVecPerThread float4s (thread t of block b reads the
// float4s t, t + 256, ... of the block's), and in block 0 the elements before the first
// 16-byte boundary and after the last whole float4.
__device__ float thread_share(const float* in, size_t n, const cg::thread_block& block) {
  const size_t misalign = (reinterpret_cast<uintptr_t>(in) & 15) / sizeof(float);
  const size_t head = misalign ? (4 - misalign < n ? 4 - misalign : n) : 0;
  const float4* in4 = reinterpret_cast<const float4*>(in + head);
  const size_t n4 = (n - head) / 4;
  const size_t tail = head + 4 * n4;

  const unsigned tid = block.thread_rank();
  const size_t block_first = size_t(block.group_index().x) * kThreads * kVecPerThread;  // in float4s
  float4 v[kVecPerThread];
#pragma unroll
  for (unsigned k = 0; k < kVecPerThread; ++k) {
    const size_t j = block_first + tid + size_t(k) * kThreads;
    v[k] = j < n4 ? in4[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
#pragma unroll
  for (unsigned w = kVecPerThread / 2; w > 0; w /= 2) {
#pragma unroll
    for (unsigned k = 0; k < w; ++k) {
      v[k].x += v[k + w].x;
      v[k].y += v[k + w].y;
      v[k].z += v[k + w].z;
      v[k].w += v[k + w].w;
    }
  }
  float sum = (v[0].x + v[0].y) + (v[0].z + v[0].w);
  if (block.group_index().x == 0) {
    if (tid < head) sum += in[tid];
    if (tail + tid < n) sum += in[tail + tid];
  }
  return sum;
}

// Block b sums its kPerBlock elements of in[0, n) and writes the sum to out[b]: each warp
// (a tile of 32) reduces its values, then the first warp reduces the warps' sums.
__global__ void __launch_bounds__(kThreads) reduce_level_kernel(const float* __restrict__ in,
                                                                float* __restrict__ out, size_t n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[kThreads / 32];

  float sum = cg::reduce(warp, thread_share(in, n, block), cg::plus<float>());
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = sum;
  block.sync();  // every warp's sum is stored before the first warp reads them
  if (warp.meta_group_rank() == 0) {
    const unsigned lane = warp.thread_rank();
    sum = cg::reduce(warp, lane < warp.meta_group_size() ? warp_sums[lane] : 0.0f, cg::plus<float>());
    if (lane == 0) out[block.group_index().x] = sum;
  }
}

void lab3::multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  // Levels take turns between two regions of d_scratch; region B starts on a multiple of 4
  // floats, so that it stays 16-byte aligned for the float4 loads.
  float* const region[2] = {d_scratch, d_scratch + (blocks_for(n) + 3) / 4 * 4};
  const float* in = d_in;
  size_t m = n;
  for (int level = 0;; ++level) {
    const size_t blocks = blocks_for(m);
    float* out = blocks == 1 ? d_sum : region[level % 2];
    reduce_level_kernel<<<unsigned(blocks), kThreads>>>(in, out, m);
    CUDALAB_CHECK_LAUNCH("reduce_level_kernel");
    if (blocks == 1) return;  // that level wrote the answer
    in = out;                 // the next level sums this level's partial sums
    m = blocks;
  }
}
