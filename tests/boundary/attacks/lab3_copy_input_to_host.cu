// Attack: the answer computed on the host. Copy the input back with cudaMemcpy, sum it there,
// write the sum's four bytes with cudaMemset, and launch one empty kernel for the launch record.
// The runner refuses the copy at the call (it is not device to device), so there is nothing to sum.
// expect-exit: 1
// expect-passed: none
// expect-cause: wrong_values
// expect-message: was refused and did not happen
#include <cstdlib>
#include <cstring>
#include "cudalab/lab3.h"
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float* in, float* scratch, float* sum, size_t n) {
  (void)scratch;
  float* host = static_cast<float*>(std::calloc(n, sizeof(float)));
  cudaMemcpy(host, in, n * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += host[i];
  const float answer = float(total);
  unsigned char bytes[4];
  std::memcpy(bytes, &answer, 4);
  for (int b = 0; b < 4; ++b) cudaMemset(reinterpret_cast<unsigned char*>(sum) + b, bytes[b], 1);
  nothing<<<1, 1>>>();
  std::free(host);
}
}  // namespace lab3
