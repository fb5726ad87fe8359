// Known slow: every thread adds each of its elements to the total with its own atomicAdd: one
// atomic per element, all on one address.
// expect-message: atomics on one address
#include <cuda_runtime.h>

#include "cudalab/lab7.h"

__global__ void atomic_each_kernel(const float* in, float* sum, size_t n) {
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(sum, in[i]);
}

void lab7::atomic_sum(const float* d_in, float* d_sum, size_t n) {
  CUDALAB_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(float)));
  const size_t wanted = (n + 255) / 256;
  atomic_each_kernel<<<unsigned(wanted < 1024 ? (wanted ? wanted : 1) : 1024), 256>>>(d_in, d_sum, n);
  CUDALAB_CHECK_LAUNCH("atomic_each_kernel");
}
