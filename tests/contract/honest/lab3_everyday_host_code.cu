// boundary: contract only (one float atomicAdd per block into the sum: a true sum, but above lab 3's
// rounding allowance at its largest sizes on a GPU, which a multi-level sum keeps within)
// Honest code the contract must accept: a helper named cudaCheck, printf, std::vector and
// std::max on the host, iostream, a template kernel, a static table, a __device__ global, an
// occupancy query, cudaMalloc'd scratch of its own.
// expect-exit: 0
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>
#include "cudalab/lab3.h"

static void cudaCheck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::printf("%s: %s\n", what, cudaGetErrorString(e));
}
static const int kTable[4] = {1, 2, 4, 8};
__device__ float d_last;

template <int kBlock>
__global__ void sum_kernel(const float* in, float* out, size_t n) {
  __shared__ float s[kBlock];
  size_t i = blockIdx.x * size_t(kBlock) + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int w = kBlock / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
  if (blockIdx.x == 0 && threadIdx.x == 0) d_last = s[0];  // one writer: no race
}

namespace lab3 {
void multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  std::vector<int> sizes(kTable, kTable + 4);
  int blocks_per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, sum_kernel<256>, 256, 0);
  float* mine = nullptr;
  cudaCheck(cudaMalloc(&mine, 4), "cudaMalloc");
  cudaCheck(cudaMemset(d_sum, 0, sizeof(float)), "cudaMemset");
  size_t blocks = std::max<size_t>(1, (n + 255) / 256);
  sum_kernel<256><<<unsigned(blocks), 256>>>(d_in, d_sum, n);
  CUDALAB_CHECK_LAUNCH("sum_kernel");
  cudaFree(mine);
  if (sizes.empty()) std::cout << "never" << std::endl;
}
}  // namespace lab3
