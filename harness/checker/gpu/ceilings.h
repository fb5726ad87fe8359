// Hardware ceilings measured in the same run as the kernels they judge.
#pragma once
#include <cstddef>

#include "checker/calls/runner_session.h"

namespace cudalab {

// Device-to-device cudaMemcpy of `bytes` bytes, in GB/s counting bytes read plus written
// (so that it compares directly with a kernel that reads its input and writes its output).
double copy_bandwidth_gbs(const RunnerSession& runner, size_t bytes);

// cuBLAS SGEMM (FP32, no tensor cores) on row-major C = A B, in TFLOP/s; returns the median ms
// through *ms when given. dA, dB, dC are device buffers of the right sizes.
double cublas_sgemm_tflops(const RunnerSession& runner, const float* dA, const float* dB, float* dC, int M, int N,
                           int K, double* ms = nullptr);

}  // namespace cudalab
