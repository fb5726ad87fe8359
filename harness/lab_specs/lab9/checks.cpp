// Lab 9's checks: SGEMM, C = A B, the product of lab 5 made fast (product_check.h: the same
// inputs, CPU reference, tolerance and diagnosis as lab 5).
//
// The sizes are chosen against the ways a fast kernel breaks, on a 128 x 256 block tile with
// 16-wide k slices and float4 loads:
//   * smaller than one block tile, odd in every dimension (1 x 1 x 1, 17 x 33 x 65): every
//     load and store is an edge case;
//   * one past a block tile (129 x 257 x 129), and the classic 1000^3 (7.8 block tiles down,
//     3.9 across, K in whole 16-slices): the interior of C is reached by the fast path, its last
//     tiles are partial;
//   * K or N no multiple of 4: row r of A starts at A + r K, which is 16-byte aligned only when
//     K % 4 == 0 (row k of B likewise with N), so a float4 load there is a misaligned address
//     on a GPU; the kernel needs a path with scalar loads for those sizes;
//   * K below one slice (K = 3), a single row, a single column, tall and skinny;
//   * whole tiles everywhere, where the fast path alone must be right;
//   * large ones, the timed size among them, checked on 24 sampled rows of C (the CPU
//     reference of 4096^3 would take minutes on one core); the CPU backend leaves them out.
// Only sizes whose work the CPU backend emulates in a few seconds are not marked large.
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/types/suite.h"
#include "checker/judging/product_check.h"
#include "cudalab/lab9.h"

namespace cudalab {
namespace {

constexpr size_t BM = lab9::kBlockM, BN = lab9::kBlockN, BK = lab9::kBlockK;

// The thread that computes an element is the student's design (1-D or 2-D register blocking,
// warp tiles: the lab's prose): the messages name the block, by the contract's tile.
const ProductLab kLab{lab9_call::kCall, BM, BK, nullptr, BN};

std::vector<CheckCase> cases() {
  return {
      {"one_by_one", "1 x 1 x 1: a single product, one busy thread of 256", mnk(1, 1, 1)},
      {"odd_small", "M 17, N 33, K 65: odd everywhere, less than one block tile", mnk(17, 33, 65)},
      {"k_below_slice", "K = 3, less than one slice of k (16): the only slice is partial", mnk(200, 136, 3)},
      {"one_block_tile", "128 x 256 x 128: exactly one block tile, whole slices of k", mnk(BM, BN, BM)},
      {"block_tile_plus_one", "129 x 257 x 129: one past a block tile in every dimension, K odd",
       mnk(BM + 1, BN + 1, BM + 1)},
      {"k_not_multiple_of_4",
       "M 256, N 256, K 130: rows of A are not 16-byte aligned (float4 loads of A cannot be used)", mnk(256, 256, 130)},
      {"n_not_multiple_of_4", "M 256, N 254, K 256: rows of B and C are not 16-byte aligned (no float4 for B or C)",
       mnk(256, 254, 256)},
      {"row_times_matrix", "M = 1: one row of A times B (1 x N output)", mnk(1, 2051, 77)},
      {"matrix_times_column", "N = 1: A times one column of B (M x 1 output)", mnk(2051, 1, 77)},
      {"non_square", "M 300, N 200, K 100: three different sizes, whole float4s", mnk(300, 200, 100)},
      {"tall_skinny", "M 4001, N 16, K 64: tall and skinny, less than one block tile wide", mnk(4001, 16, 64)},
      {"classic_1000", "1000 x 1000 x 1000: 7.8 block tiles down, 3.9 across, K whole slices", mnk(1000, 1000, 1000)},
      {"whole_tiles", "M 256, N 512, K 1024: whole block tiles everywhere, rectangular", mnk(256, 512, 1024)},
      {"large_odd_sampled", "M 2049, N 3001, K 2500: large and odd (24 sampled rows of C checked)",
       mnk(2049, 3001, 2500), true},
      {"timed_size_sampled", "4096 x 4096 x 4096: the timed size (24 sampled rows of C checked)", mnk(4096, 4096, 4096),
       true},
  };
}

// A float4 access needs a 16-byte aligned address; CUDA's "misaligned address" does not say
// which sizes make one, so the check does.
std::string misaligned_hint(const Shape& s) {
  const size_t N = s.dims[1], K = s.dims[2];
  std::string why;
  if (K % 4)
    why = "K = " + std::to_string(K) + " is no multiple of 4, so row r of A, at A + r K, is not 16-byte aligned";
  if (N % 4)
    why += (why.empty() ? "" : "; and ") + ("N = " + std::to_string(N)) +
           " is no multiple of 4, so the rows of B and C are not 16-byte aligned";
  if (why.empty()) why = "a float4 must start at an element index that is a multiple of 4";
  return "float4 loads and stores need 16-byte aligned addresses: " + why +
         ". Use float4 only when K % 4 == 0 and N % 4 == 0 (and the pointers are aligned); otherwise load one float "
         "at a time (the host function picks the kernel)";
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  try {
    return run_product_check(calls, kLab, c, seed);
  } catch (LabCallFailure& f) {
    if (std::string(f.what()).find("misaligned") != std::string::npos) f.notes.push_back(misaligned_hint(c.shape));
    throw;
  }
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite = product_suite(kLab, "SGEMM: register blocking toward cuBLAS", cases(), run);
  return suite;
}

}  // namespace cudalab
