// Known slow: lab 5's tiled product as lab 9's answer. Tiles of A and B go through shared memory
// (so global memory is used well enough), but each thread computes one element of C: for every
// multiply-add it reads two values from shared memory, where the reference's threads hold a
// 16 x 8 patch of C in registers and multiply each value they read by 8 or 16 others.
// expect-message: data reuse from shared memory is the limiter
#include <cuda_runtime.h>

#include "cudalab/lab9.h"

constexpr int kTile = 32;

__global__ void one_output_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float acc = 0.0f;
  for (int t = 0; t < K; t += kTile) {
    As[ty][tx] = (row < M && t + tx < K) ? A[size_t(row) * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[size_t(t + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

void lab9::sgemm(const float* d_A, const float* d_B, float* d_C, int M, int N, int K) {
  const dim3 block(kTile, kTile);
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  one_output_kernel<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
  CUDALAB_CHECK_LAUNCH("one_output_kernel");
}
