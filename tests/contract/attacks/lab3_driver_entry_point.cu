// Attack: reach the driver API's copy through the runtime's entry-point lookup.
// expect-exit: 1
// expect-cause: calls_outside_contract
// expect-message: cudaGetDriverEntryPoint
// backends: cuda (the CPU backend has no driver API: there the file does not compile)
#include "cudalab/lab3.h"
__global__ void put(float* d_sum, float v) { *d_sum = v; }
namespace lab3 {
void multilevel_sum(const float* d_in, float*, float* d_sum, size_t n) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  cudaGetDriverEntryPoint("cuMemcpyDtoH", &fn, cudaEnableDefault, &found);
  put<<<1, 1>>>(d_sum, fn ? 1.0f : 0.0f);
}
}  // namespace lab3
