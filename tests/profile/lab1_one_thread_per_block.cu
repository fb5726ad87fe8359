// Known slow: thread 0 of each block adds the block's elements in a loop while the other 255
// threads wait. Right, but one lane of 32 works.
// expect-message: divergent warps
#include <cuda_runtime.h>

#include "cudalab/lab1.h"

__global__ void serial_block_kernel(float* data, float* block_sums, size_t n) {
  const size_t first = size_t(blockIdx.x) * blockDim.x;
  if (threadIdx.x != 0) return;
  float sum = 0.0f;
  for (size_t i = first; i < first + blockDim.x && i < n; ++i) sum += data[i];
  block_sums[blockIdx.x] = sum;
}

void lab1::block_sums(float* d_data, float* d_block_sums, size_t n) {
  serial_block_kernel<<<unsigned(lab1::num_blocks(n)), lab1::kBlockSize>>>(d_data, d_block_sums, n);
  CUDALAB_CHECK_LAUNCH("serial_block_kernel");
}
