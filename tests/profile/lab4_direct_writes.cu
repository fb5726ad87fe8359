// Known slow: the naive transpose, no tile: reads along a row are coalesced, but a warp's writes
// go down a column, 32 lanes to 32 different sectors.
// expect-message: uncoalesced
#include <cuda_runtime.h>

#include "cudalab/lab4.h"

__global__ void direct_transpose_kernel(const float* in, float* out, int rows, int cols) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) out[col * rows + row] = in[row * cols + col];
}

void lab4::transpose(const float* d_in, float* d_out, int rows, int cols) {
  const dim3 block(32, 8);
  const dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  direct_transpose_kernel<<<grid, block>>>(d_in, d_out, rows, cols);
  CUDALAB_CHECK_LAUNCH("direct_transpose_kernel");
}
