// The harness's own matrix-product kernels (labs 5 and 9), as the checker names them: the
// kernels live in the baseline runner (harness/baselines/product.cu), timed as the student's code
// is, on calls made as the student's are: C = A B, row-major. They are the rungs of lab 9's
// ladder (labs/lab9_sgemm.cu):
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

namespace cudalab {

struct ProductBaseline {
  std::string name;  // the report's row: "naive: one thread per element, 16 x 16 (harness)"
  int rung = 0;  // which kernel of the baseline runner (harness/baselines/baselines.h: product())
  // The sizes it is written for (empty: any); the timing leaves it out for others.
  std::function<bool(int M, int N, int K)> fits;
};

// cuBLAS SGEMM's place among the baseline runner's products (baselines.h: kCublasRung).
constexpr int kCublasProductRung = 9;

// Whole 128 x 128 tiles of C and 8-wide slices of k (so also whole 64 x 64 tiles), and a grid
// within gridDim.y's limit: what rungs 2 to 4 are written for.
inline bool whole_ladder_tiles(int M, int N, int K) {
  return M % 128 == 0 && N % 128 == 0 && K % 8 == 0 && M / 64 <= 65535;
}

// One thread per element of C, walking A and B in global memory (16 x 16 blocks).
inline ProductBaseline naive_product_baseline() { return {"naive: one thread per element, 16 x 16 (harness)", 0, {}}; }
// Lab 5's kernel: 32 x 32 tiles of A and B in shared memory, one element of C per thread.
inline ProductBaseline tiled_product_baseline() { return {"lab 5: 32 x 32 tiles in shared memory (harness)", 1, {}}; }
// Lab 9's rungs 2, 3 and 4 (above): M and N multiples of 128, K of 8, 16-byte aligned buffers.
inline ProductBaseline blocked_1d_product_baseline() {
  return {"rung 2: 1-D register blocking, 8 per thread (harness)", 2, whole_ladder_tiles};
}
inline ProductBaseline blocked_2d_product_baseline() {
  return {"rung 3: 2-D register blocking, 8 x 8 per thread (harness)", 3, whole_ladder_tiles};
}
inline ProductBaseline vectorized_product_baseline() {
  return {"rung 4: rung 3 with float4 loads, A transposed (harness)", 4, whole_ladder_tiles};
}

}  // namespace cudalab
