// boundary: contract only (one float atomicAdd per block into the sum: a true sum, but above lab 3's
// rounding allowance at its largest sizes on a GPU, which a multi-level sum keeps within)
// Honest code the contract must accept: dynamic shared memory (extern __shared__, sized at the
// launch), a warp shuffle, cudaDeviceSynchronize and cudaGetLastError after the launch.
// expect-exit: 0
#include "cudalab/lab3.h"

__global__ void block_sum(const float* in, float* out, size_t n) {
  extern __shared__ float partial[];
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) s += partial[w];
    atomicAdd(out, s);
  }
}

namespace lab3 {
void multilevel_sum(const float* d_in, float*, float* d_sum, size_t n) {
  cudaMemset(d_sum, 0, sizeof(float));
  unsigned blocks = unsigned((n + 255) / 256);
  block_sum<<<blocks, 256, 8 * sizeof(float)>>>(d_in, d_sum, n);
  cudaDeviceSynchronize();
  CUDALAB_CHECK(cudaGetLastError());
}
}  // namespace lab3
