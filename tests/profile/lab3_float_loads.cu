// Known slow: the reference's levels, but each thread loads one float (4 bytes) at a time where
// the reference loads float4s (16 bytes): four times the load instructions for the same bytes.
// expect-message: narrow loads
#include <cuda_runtime.h>

#include "cudalab/lab3.h"

constexpr unsigned kThreads = 256;
constexpr unsigned kPerThread = 32;
constexpr size_t kPerBlock = size_t(kThreads) * kPerThread;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void float_level_kernel(const float* in, float* out, size_t n) {
  const unsigned tid = threadIdx.x;
  const size_t first = size_t(blockIdx.x) * kPerBlock + tid;
  float sum = 0.0f;
  for (unsigned k = 0; k < kPerThread; ++k) {
    const size_t j = first + size_t(k) * kThreads;
    if (j < n) sum += in[j];
  }
  __shared__ float warp_sums[kThreads / 32];
  sum = warp_sum(sum);
  if (tid % 32 == 0) warp_sums[tid / 32] = sum;
  __syncthreads();
  if (tid < 32) {
    sum = warp_sum(tid < kThreads / 32 ? warp_sums[tid] : 0.0f);
    if (tid == 0) out[blockIdx.x] = sum;
  }
}

void lab3::multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  const size_t first_blocks = (n + kPerBlock - 1) / kPerBlock;
  float* const region[2] = {d_scratch, d_scratch + (first_blocks + 3) / 4 * 4};
  const float* in = d_in;
  for (int level = 0;; ++level) {
    const size_t blocks = (n + kPerBlock - 1) / kPerBlock;
    float* out = blocks == 1 ? d_sum : region[level % 2];
    float_level_kernel<<<unsigned(blocks), kThreads>>>(in, out, n);
    CUDALAB_CHECK_LAUNCH("float_level_kernel");
    if (blocks == 1) return;
    in = out;
    n = blocks;
  }
}
