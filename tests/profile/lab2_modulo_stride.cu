// Known slow: lab 1's interleaved `%` stride in shared memory: at each step only the threads
// whose index is a multiple of 2s work, scattered over every warp.
// expect-message: divergent warps
#include <cuda_runtime.h>

#include "cudalab/lab2.h"

__global__ void modulo_sum_kernel(const float* in, float* out, size_t n) {
  __shared__ float s[lab2::kBlockSize];
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

void lab2::shared_sum(const float* d_in, float* d_block_sums, float* d_sum, size_t n) {
  const unsigned blocks = unsigned(lab2::num_blocks(n));
  modulo_sum_kernel<<<blocks, lab2::kBlockSize>>>(d_in, d_block_sums, n);
  CUDALAB_CHECK_LAUNCH("modulo_sum_kernel");
  modulo_sum_kernel<<<1, lab2::kBlockSize>>>(d_block_sums, d_sum, blocks);
  CUDALAB_CHECK_LAUNCH("modulo_sum_kernel");
}
