// The baseline runner's one cuBLAS handle, and cuBLAS's status as an exception.
#pragma once
#include <cublas_v2.h>

namespace cudalab::baselines {
cublasHandle_t cublas_handle();
void require_cublas(cublasStatus_t s, const char* what);
}  // namespace cudalab::baselines
