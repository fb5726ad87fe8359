// The check of the matrix-product labs (5: the tiled product, 9: SGEMM), which share one
// contract: C = A B, row-major, A M x K, B K x N, any sizes, FP32. A check makes A and B from
// the seed, calls the lab's function in the kernel runner, and compares every element of C
// (or, for large products, of 24 sampled rows) with the double-precision CPU product
// (matrix_reference.h), within dot_tolerance(K, sum_k |a_ik| |b_kj|) (tolerance.h). On a
// failure it names the owning block and what it sees: NaN from a load past the end of A or B,
// the last partial tile along k left out, nothing accumulated, a store without its test.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "checker/types/suite.h"
#include "wire/lab_signature.h"

namespace cudalab {

// The buffers and scalars both product labs' calls take, in order (lab_specs/lab5/call.h and
// lab_specs/lab9/call.h say the same: A, B, C; M, N, K).
enum ProductBuffer : size_t { kProductA, kProductB, kProductC };
enum ProductScalar : size_t { kProductM, kProductN, kProductK };

// What differs between the product labs: the call (its lab and function) and its launch's shape.
struct ProductLab {
  wire::LabSignature call;  // labN_call::kCall
  // Block (bx, by) computes the tile x tile tile of C whose top-left element is
  // (by * tile, bx * tile) (tile x tile_n, at (by * tile, bx * tile_n), when tile_n is set);
  // gridDim.y therefore limits M to 65,535 tiles.
  size_t tile = 0;
  // The slice of k one pass of the kernel's loop covers (32 in lab 5, 16 in lab 9), for the
  // "the last, partial slice along k was left out" diagnosis.
  size_t k_step = 0;
  // The thread of its block that computes C[row][col] under the lab's mapping, for the
  // messages; empty when the lab leaves that mapping to the student (only the block is named).
  std::function<std::string(size_t row, size_t col)> thread_of;
  // When not 0, a block's tile is tile rows by tile_n columns of C instead (lab 9: 128 x 256).
  size_t tile_n = 0;
};

// Runs one check of a product lab: case c's M x N x K, inputs from `seed`.
CheckResult run_product_check(CallContext& calls, const ProductLab& lab, const CheckCase& c, uint64_t seed);

// "" when a --size can run under the lab's contract, otherwise why not.
std::string reject_product_shape(const ProductLab& lab, const Shape& s);

// A product lab's suite: `cases` run by `run` (run_product_check, or a wrapper that adds the lab's
// own hints), sized M x N x K within the lab's contract.
LabSuite product_suite(const ProductLab& lab, std::string title, std::vector<CheckCase> cases,
                       std::function<CheckResult(CallContext&, const CheckCase&, uint64_t seed)> run);

// A product case's shape: {M, N, K}.
inline Shape mnk(size_t M, size_t N, size_t K) { return Shape{{M, N, K}}; }

}  // namespace cudalab
