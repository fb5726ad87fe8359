#include "ceilings.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "timer.h"
#include "wire/cuda_errors.h"

namespace cudalab {

double copy_bandwidth_gbs(const RunnerSession& runner, size_t bytes) {
  void *src = nullptr, *dst = nullptr;
  require(cudaMalloc(&src, bytes), "allocating the copy-bandwidth source");
  require(cudaMalloc(&dst, bytes), "allocating the copy-bandwidth destination");
  require(cudaMemset(src, 0x3C, bytes), "filling the copy source");
  Timing t =
      time_gpu(runner, [&] { require(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "the device copy"); });
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * double(bytes) / (t.median_ms * 1e6);
}

static const char* cublas_message(cublasStatus_t s) { return cublasGetStatusString(s); }

double cublas_sgemm_tflops(const RunnerSession& runner, const float* dA, const float* dB, float* dC, int M, int N,
                           int K, double* ms) {
  cublasHandle_t h;
  cublasStatus_t s = cublasCreate(&h);
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cublasCreate failed: ") + cublas_message(s));
  // Plain FP32: no TF32 tensor cores, so the comparison is like for like.
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  Timing t = time_gpu(runner, [&] {
    cublasStatus_t st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, dB, N, dA, K, &zero, dC, N);
    if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cublasSgemm failed: ") + cublas_message(st));
  });
  cublasDestroy(h);
  if (ms) *ms = t.median_ms;
  return 2.0 * M * N * double(K) / (t.median_ms * 1e9);
}

}  // namespace cudalab
