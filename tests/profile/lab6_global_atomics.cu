// Known slow: no privatization. Every thread adds each of its bytes straight into the global
// histogram with its own atomicAdd: one global atomic per byte, all on 256 addresses, where the
// reference counts into shared memory and sends 256 atomics per block.
// expect-message: atomics on one address
#include <cuda_runtime.h>

#include "cudalab/lab6.h"

__global__ void global_atomics_kernel(const unsigned char* in, unsigned* hist, size_t n) {
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&hist[in[i]], 1u);
}

void lab6::histogram(const unsigned char* d_in, unsigned* d_hist, size_t n) {
  CUDALAB_CHECK(cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned)));
  const size_t wanted = (n + 255) / 256;
  global_atomics_kernel<<<unsigned(wanted < 1024 ? (wanted ? wanted : 1) : 1024), 256>>>(d_in, d_hist, n);
  CUDALAB_CHECK_LAUNCH("global_atomics_kernel");
}
