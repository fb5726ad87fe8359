// A runner that lies about its time, for tests/gpu/timing_bound.sh only (make builds it as
// build/cuda/tests/labN-lying-runner: the reference solution and this file; never a runner a
// student's file is graded with). It stands in front of the CUDA runtime's cudaEventElapsedTime,
// as a lab file that defined the function would (the link contract refuses that in a lab file),
// and reports CUDALAB_TEST_REPORT_SCALE times what the events saw. The checker must refuse every
// such time below its own clock's (checker/timing/timing_bound.h).
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  using Real = cudaError_t (*)(float*, cudaEvent_t, cudaEvent_t);
  static const Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "cudaEventElapsedTime"));
  if (!real) {
    std::fprintf(stderr, "lying_events: the CUDA runtime has no cudaEventElapsedTime\n");
    std::abort();
  }
  const cudaError_t status = real(ms, start, end);
  const char* v = std::getenv("CUDALAB_TEST_REPORT_SCALE");
  const double scale = v ? std::atof(v) : 1.0;
  if (status == cudaSuccess && scale > 0) *ms = float(*ms * scale);
  return status;
}
