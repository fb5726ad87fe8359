// Attack: define the runtime's event timing through a token-pasting macro, so that no line of
// the file names it, and report any time. The contract judges the compiled object, so the
// macro changes nothing, on either backend.
// expect-exit: 1
// expect-cause: defines_reserved_name
// expect-message: cudaEventElapsedTime
#include "cudalab/lab3.h"
#define PASTE(a, b) a##b
#ifdef CUDALAB_BACKEND_CPU
cudaError_t PASTE(cudaEvent, ElapsedTime)(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 0.001f; return cudaSuccess; }
#else
extern "C" cudaError_t PASTE(cudaEvent, ElapsedTime)(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 0.001f; return cudaSuccess; }
#endif
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
