// The harness's own matrix-product kernels (labs 5 and 9), timed beside the student's on the
// same matrices: C = A B, row-major. They are the rungs of lab 9's ladder (labs/lab9_sgemm.cu):
//   0  naive: one thread per element of C, A and B read from global memory
//   1  lab 5: 32 x 32 tiles of A and B in shared memory, one element of C per thread
//   2  1-D register blocking: 64 x 64 block tiles, 8 elements of a column of C per thread
//   3  2-D register blocking: 128 x 128 block tiles, an 8 x 8 patch of C per thread
//   4  rung 3 with float4 loads, A's tile transposed in shared memory
// (rung 5, warp tiles and two shared-memory stages, is lab 9's reference solution.) Rungs 0
// and 1 take any M, N, K; rungs 2 to 4 are timing baselines for whole tiles only (fits()).
#pragma once
#include <functional>
#include <string>

#include "timer.h"

namespace cudalab {

struct ProductBaseline {
  std::string name;  // the report's row: "naive: one thread per element, 16 x 16 (harness)"
  std::function<Timing(const float* A, const float* B, float* C, int M, int N, int K)> time;
  // The sizes it is written for (empty: any); the timing leaves it out for others.
  std::function<bool(int M, int N, int K)> fits;
};

// One thread per element of C, walking A and B in global memory (16 x 16 blocks).
ProductBaseline naive_product_baseline();
// Lab 5's kernel: 32 x 32 tiles of A and B in shared memory, one element of C per thread.
ProductBaseline tiled_product_baseline();
// Lab 9's rungs 2, 3 and 4 (above): M and N multiples of 128, K of 8, 16-byte aligned buffers.
ProductBaseline blocked_1d_product_baseline();
ProductBaseline blocked_2d_product_baseline();
ProductBaseline vectorized_product_baseline();

}  // namespace cudalab
