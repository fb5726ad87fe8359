// Attack: stand in for a runtime call the runner makes while preparing a timed repetition,
// and compute the answer there, outside the timed window. A lab file may call cudaMemset,
// never define it.
// expect-exit: 1
// expect-cause: defines_reserved_name
// expect-message: cudaMemset
#include "cudalab/lab3.h"
#ifdef CUDALAB_BACKEND_CPU
cudaError_t cudaMemset(void* p, int value, size_t bytes) { return cudaSuccess; }
#else
extern "C" cudaError_t cudaMemset(void* p, int value, size_t bytes) { return cudaSuccess; }
#endif
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
