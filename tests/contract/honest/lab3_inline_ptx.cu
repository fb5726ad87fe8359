// Honest (GPU): inline PTX in a kernel, as a course may teach it (the lane's id and a warp
// reduction written with shuffles). The CPU backend does not compile assembly, so this file is
// for the GPU's build only.
// backends: cuda
// expect-exit: 0
#include "cudalab/lab3.h"

__device__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__global__ void block_sums(const float* in, float* out, size_t n) {
  __shared__ float warp_sums[32];
  float v = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) v += in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane_id() == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

namespace lab3 {
void multilevel_sum(const float* in, float* scratch, float* sum, size_t n) {
  const unsigned blocks = n < 256 * 1024 ? unsigned((n + 255) / 256) : 1024u;
  block_sums<<<blocks, 256>>>(in, blocks == 1 ? sum : scratch, n);
  if (blocks > 1) block_sums<<<1, 256>>>(scratch, sum, blocks);
}
}  // namespace lab3
