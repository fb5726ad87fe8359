// Inputs and CPU references shared by the matrix labs (4: transpose, 5: matrix product).
// Backend-neutral C++: compiled by nvcc for the GPU build and by g++ for the CPU build.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wire/protocol.h"

namespace cudalab {

struct OutputSample;  // lab_call.h

// A rows x cols row-major matrix of uniform values in [lo, hi), drawn from `stream` under
// `seed` (each matrix of a check gets its own stream, so A and B never share values).
std::vector<float> matrix_input(size_t rows, size_t cols, uint64_t seed, uint64_t stream, float lo, float hi);

// Who owns output element (row, col) of a launch that gives each block one tile x tile tile
// of the output, blockIdx.x along the columns and blockIdx.y along the rows:
// "block (bx, by)". The thread inside the block depends on the lab's mapping.
std::string tile_block_name(size_t row, size_t col, size_t tile);
// The same for tiles of tile_rows x tile_cols (lab 9's 128 x 256).
std::string tile_block_name(size_t row, size_t col, size_t tile_rows, size_t tile_cols);

// ---- Lab 4: transpose ------------------------------------------------------------------

// One CPU core, tiled so that both matrices are walked in cache-friendly pieces:
// out (cols x rows) = transpose of in (rows x cols). The "one CPU core" timing row.
void cpu_transpose(const float* in, float* out, size_t rows, size_t cols);

// ---- Lab 5: matrix product ---------------------------------------------------------------

// The exact-enough product C = A B (A is M x K, B is K x N, row-major) for the listed rows
// of C, in double, with sum_k |a_ik| |b_kj| beside each element for the tolerance.
// value[r * N + j] and abs_dot[r * N + j] belong to C's row rows[r]. Parallel over rows.
struct ProductRows {
  std::vector<size_t> rows;
  std::vector<double> value, abs_dot;
};
ProductRows product_reference(const std::vector<float>& A, const std::vector<float>& B, size_t M, size_t N, size_t K,
                              std::vector<size_t> rows);

// All rows 0 .. M-1 (for product_reference).
std::vector<size_t> all_rows(size_t M);

// About `count` distinct rows of an M-row product to check when the whole product is too
// costly for the CPU: the first and last rows, the rows on both sides of every kind of tile
// edge (the last full tile, the partial tile), and seeded random rows. Sorted.
std::vector<size_t> sample_rows(size_t M, size_t tile, size_t count, uint64_t seed);

// The transpose (cols x rows) of a rows x cols matrix, in double: lab 4's expected output, tile
// by tile on every core (a plain loop over 10^8 elements takes seconds on one).
std::vector<double> transpose_reference(const std::vector<float>& in, size_t rows, size_t cols);

// ---- Timed calls, checked on elements drawn after they ran (LabCall::sampled_output) ------
// Each returns "" when every sample is right, else what the first wrong one is; no sample at
// all is wrong too (nothing was checked).

// Lab 4: samples of the output (cols x rows), exactly against the input fill `in` (rows x cols).
std::string check_transpose_samples(const std::vector<OutputSample>& samples, const wire::Fill& in, size_t rows,
                                    size_t cols);

// Labs 5 and 9: samples of C (M x N), each against its dot product of length K over the fills of
// A (M x K) and B (K x N), within the rounding tolerance.
std::string check_product_samples(const std::vector<OutputSample>& samples, const wire::Fill& a, const wire::Fill& b,
                                  size_t M, size_t N, size_t K);

// One CPU core, float, the i-k-j loop order (rows of B streamed, vectorizable): C's rows
// [row_begin, row_end) only. The "one CPU core" timing row, measured on a few rows.
void cpu_matmul_rows(const float* A, const float* B, float* C, size_t N, size_t K, size_t row_begin, size_t row_end);

}  // namespace cudalab
