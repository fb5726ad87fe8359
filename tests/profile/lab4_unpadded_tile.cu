// Known slow: the reference's tiled transpose without the padding column: reading a column of a
// [32][32] float tile puts all 32 lanes of a warp in one bank.
// expect-message: bank conflicts
#include <cuda_runtime.h>

#include "cudalab/lab4.h"

using lab4::kBlockRows;
using lab4::kTile;

__global__ void unpadded_transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int in_col = blockIdx.x * kTile + tx;
  const int in_row = blockIdx.y * kTile + ty;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (in_row + j < rows && in_col < cols) tile[ty + j][tx] = in[(in_row + j) * cols + in_col];
  __syncthreads();
  const int out_col = blockIdx.y * kTile + tx;
  const int out_row = blockIdx.x * kTile + ty;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (out_row + j < cols && out_col < rows) out[(out_row + j) * rows + out_col] = tile[tx][ty + j];
}

void lab4::transpose(const float* d_in, float* d_out, int rows, int cols) {
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  unpadded_transpose_kernel<<<grid, block>>>(d_in, d_out, rows, cols);
  CUDALAB_CHECK_LAUNCH("unpadded_transpose_kernel");
}
