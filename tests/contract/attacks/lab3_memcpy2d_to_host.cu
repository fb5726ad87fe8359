// Attack: bring the input to the host with a copy the runner does not wrap (cudaMemcpy2D),
// sum it there, and launch an empty kernel for show. No host copy is on any lab's list.
// expect-exit: 1
// expect-cause: calls_outside_contract
// expect-message: cudaMemcpy2D
#include <vector>
#include "cudalab/lab3.h"
__global__ void put(float* d_sum, float v) { *d_sum = v; }
namespace lab3 {
void multilevel_sum(const float* d_in, float*, float* d_sum, size_t n) {
  std::vector<float> host(n);
  cudaMemcpy2D(host.data(), n * 4, d_in, n * 4, n * 4, 1, cudaMemcpyDeviceToHost);
  double s = 0;
  for (float x : host) s += x;
  put<<<1, 1>>>(d_sum, float(s));
}
}  // namespace lab3
