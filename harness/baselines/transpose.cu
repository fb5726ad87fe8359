// Lab 4's comparisons: the naive transpose (coalesced reads, strided writes) and cuBLAS's geam.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "baselines.h"
#include "cublas_handle.h"

namespace cudalab::baselines {
namespace {

// One thread per element, 32 x 32 threads a block. Neighbouring threads read neighbouring
// input elements (coalesced) and write output elements `rows` floats apart.
__global__ void naive_transpose_kernel(const float* in, float* out, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[size_t(c) * rows + r] = in[size_t(r) * cols + c];
}

}  // namespace

void require_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(s));
}

// The runner's one cuBLAS handle (product.cu uses it too), made on the first call: a warm-up's.
cublasHandle_t cublas_handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t made;
    require_cublas(cublasCreate(&made), "cublasCreate");
    return made;
  }();
  return h;
}

void naive_transpose(const float* in, float* out, int rows, int cols) {
  const dim3 block(32, 32), grid((cols + 31) / 32, (rows + 31) / 32);
  naive_transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

// cuBLAS is column-major: our row-major rows x cols input is its cols x rows matrix (ld cols),
// and our cols x rows output its rows x cols matrix (ld rows). C = 1 * op_T(A) + 0 * B with
// B = C (geam's documented in-place form; B is not read when beta is 0).
void cublas_transpose(const float* in, float* out, int rows, int cols) {
  const float one = 1.0f, zero = 0.0f;
  require_cublas(
      cublasSgeam(cublas_handle(), CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out, rows),
      "cublasSgeam");
}

}  // namespace cudalab::baselines
