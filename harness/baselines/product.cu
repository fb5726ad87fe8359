// Labs 5 and 9: the harness's matrix products (rungs 0-4 of lab 9's ladder) and cuBLAS SGEMM.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <stdexcept>
#include <utility>

#include "baselines.h"
#include "cublas_handle.h"

namespace cudalab::baselines {
namespace {

constexpr int kNaiveBlock = 16;  // 16 x 16 threads, as in the usual first CUDA matmul
constexpr int kTile = 32;  // lab 5's tile

// Each thread walks row `row` of A and column `col` of B in global memory. The loop over rows
// keeps gridDim.y within its limit for any M the labs accept.
__global__ void naive_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * kNaiveBlock + threadIdx.x;
  if (col >= N) return;
  for (int row = blockIdx.y * kNaiveBlock + threadIdx.y; row < M; row += gridDim.y * kNaiveBlock) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[size_t(row) * K + k] * B[size_t(k) * N + col];
    C[size_t(row) * N + col] = acc;
  }
}

// Lab 5's kernel: each block stages 32 x 32 tiles of A and B in shared memory, each thread
// computes one element of C from them. The loop over tile rows keeps gridDim.y in its limit.
__global__ void tiled_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * kTile + tx;
  for (int row0 = blockIdx.y * kTile; row0 < M; row0 += gridDim.y * kTile) {
    const int row = row0 + ty;
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
}

// ---- Lab 9's rungs 2 to 4 (labs/lab9_sgemm.cu), for whole tiles only --------------------------

// Rung 2, 1-D register blocking: a 64 x 64 tile of C per block of 512 threads, slices of 8
// along k; thread t computes rows (t / 64) * 8 + i, i < 8, of column t % 64: one value of Bs in
// a register feeds 8 FMAs (its 8 values of As are the same for the whole warp: broadcasts).
namespace rung2 {
constexpr int BM = 64, BN = 64, BK = 8, TM = 8, kThreads = BM * BN / TM;
__global__ void __launch_bounds__(kThreads) kernel(const float* A, const float* B, float* C, int N, int K) {
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int t = threadIdx.x, row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int trow = t / BN, tcol = t % BN;
  float acc[TM] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    As[t / BK][t % BK] = A[size_t(row0 + t / BK) * K + k0 + t % BK];
    Bs[t / BN][t % BN] = B[size_t(k0 + t / BN) * N + col0 + t % BN];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k][tcol];
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] += As[trow * TM + i][k] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) C[size_t(row0 + trow * TM + i) * N + col0 + tcol] = acc[i];
}
}  // namespace rung2

// Rung 3, 2-D register blocking: a 128 x 128 tile of C per block of 256 threads, slices of 8
// along k; thread t computes the 8 x 8 patch at ((t / 16) * 8, (t % 16) * 8): for each k, 8
// values of As and 8 of Bs in registers feed 64 FMAs. Loads one float at a time.
namespace rung3 {
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, kThreads = (BM / TM) * (BN / TN);
__global__ void __launch_bounds__(kThreads) kernel(const float* A, const float* B, float* C, int N, int K) {
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int t = threadIdx.x, row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int trow = t / (BN / TN), tcol = t % (BN / TN);
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = t; i < BM * BK; i += kThreads) As[i / BK][i % BK] = A[size_t(row0 + i / BK) * K + k0 + i % BK];
#pragma unroll
    for (int i = t; i < BK * BN; i += kThreads) Bs[i / BN][i % BN] = B[size_t(k0 + i / BN) * N + col0 + i % BN];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[trow * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tcol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) C[size_t(row0 + trow * TM + i) * N + col0 + tcol * TN + j] = acc[i][j];
}
}  // namespace rung3

// Rung 4, rung 3 vectorized: each thread loads its share of a slice as one float4 of A and one
// of B; A's tile is stored transposed, As[k][m], so that a thread's 8 values of A for one k,
// like its 8 of B, are two float4 reads of shared memory; C is written a float4 at a time.
namespace rung4 {
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, kThreads = (BM / TM) * (BN / TN);
__global__ void __launch_bounds__(kThreads) kernel(const float* A, const float* B, float* C, int N, int K) {
  __align__(16) __shared__ float As[BK][BM];
  __align__(16) __shared__ float Bs[BK][BN];
  const int t = threadIdx.x, row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int trow = t / (BN / TN), tcol = t % (BN / TN);
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    const float4 a = *reinterpret_cast<const float4*>(A + size_t(row0 + t / 2) * K + k0 + (t % 2) * 4);
    As[(t % 2) * 4 + 0][t / 2] = a.x;
    As[(t % 2) * 4 + 1][t / 2] = a.y;
    As[(t % 2) * 4 + 2][t / 2] = a.z;
    As[(t % 2) * 4 + 3][t / 2] = a.w;
    *reinterpret_cast<float4*>(&Bs[t / 32][(t % 32) * 4]) =
        *reinterpret_cast<const float4*>(B + size_t(k0 + t / 32) * N + col0 + (t % 32) * 4);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[k][trow * TM]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[k][trow * TM + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tcol * TN]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][tcol * TN + 4]);
      const float av[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      *reinterpret_cast<float4*>(C + size_t(row0 + trow * TM + i) * N + col0 + tcol * TN + j) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}
}  // namespace rung4

// Lab 9's rungs 2 to 4 take whole 128 x 128 tiles of C and 8-wide slices of k (the checker's
// product_baselines.h leaves them out for other sizes).
template <class Kernel>
void ladder_rung(Kernel kernel, int tile, int threads, const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 grid(N / tile, M / tile);
  kernel<<<grid, threads>>>(A, B, C, N, K);
}

// C = A B with cuBLAS, row-major as column-major: C^T = B^T A^T, so B is cuBLAS's first operand.
void cublas_sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  const float one = 1.0f, zero = 0.0f;
  require_cublas(cublasSgemm(cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N),
                 "cublasSgemm");
}

}  // namespace

void product(int rung, const float* A, const float* B, float* C, int M, int N, int K) {
  switch (rung) {
    case 0: {
      const dim3 block(kNaiveBlock, kNaiveBlock);
      const dim3 grid((N + kNaiveBlock - 1) / kNaiveBlock, std::min((M + kNaiveBlock - 1) / kNaiveBlock, 65535));
      naive_matmul<<<grid, block>>>(A, B, C, M, N, K);
      return;
    }
    case 1: {
      const dim3 block(kTile, kTile);
      const dim3 grid((N + kTile - 1) / kTile, std::min((M + kTile - 1) / kTile, 65535));
      tiled_matmul<<<grid, block>>>(A, B, C, M, N, K);
      return;
    }
    case 2: return ladder_rung(rung2::kernel, rung2::BM, rung2::kThreads, A, B, C, M, N, K);
    case 3: return ladder_rung(rung3::kernel, rung3::BM, rung3::kThreads, A, B, C, M, N, K);
    case 4: return ladder_rung(rung4::kernel, rung4::BM, rung4::kThreads, A, B, C, M, N, K);
    case kCublasRung: return cublas_sgemm(A, B, C, M, N, K);
    default: throw std::runtime_error("no product baseline " + std::to_string(rung));
  }
}

}  // namespace cudalab::baselines
