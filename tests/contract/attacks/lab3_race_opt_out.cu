// Attack: hide a race from the CPU backend's race detector. The racy helper opts out of
// -fsanitize=thread with an attribute, so the detector never sees its accesses; the sum is right
// in-order and the race (two threads writing the same partial) goes unreported.
// expect-exit: 1
// expect-cause: race_detector_opt_out
// expect-message: racy_add
// backends: cpu (its race-detector build only: the plain build has no hooks to leave out)
// build: race
#include "cudalab/lab3.h"
__attribute__((no_sanitize("thread"))) __device__ void racy_add(float* at, float v) { *at += v; }
__global__ void sum_kernel(const float* in, float* out, size_t n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *out = 0;
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) racy_add(out, in[i]);
}
namespace lab3 {
void multilevel_sum(const float* in, float*, float* sum, size_t n) { sum_kernel<<<1, 1>>>(in, sum, n); }
}  // namespace lab3
