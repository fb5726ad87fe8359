// Known slow: the product without shared memory. Each thread walks row i of A and column j of B
// straight from global memory, so every value it loads feeds one multiply-add; the reference
// fetches a 32 x 32 tile once into shared memory and every value then serves 32 threads.
// The loads themselves are coalesced (a warp reads one word of A, a broadcast, and 32
// neighbouring words of B): what is missing is reuse.
// expect-message: data reuse from global memory is the limiter
#include <cuda_runtime.h>

#include "cudalab/lab5.h"

using lab5::kTile;

__global__ void naive_matmul_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  if (row >= M || col >= N) return;  // no tiles to load for neighbours: returning is safe here
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

void lab5::matmul(const float* d_A, const float* d_B, float* d_C, int M, int N, int K) {
  const dim3 block(kTile, kTile);
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  naive_matmul_kernel<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
  CUDALAB_CHECK_LAUNCH("naive_matmul_kernel");
}
