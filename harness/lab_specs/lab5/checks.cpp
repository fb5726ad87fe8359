// Lab 5's checks: the bounds-checked tiled matrix product C = A B.
//
// Each element of C is compared with a double-precision CPU product, within
// dot_tolerance(K, sum_k |a_ik| |b_kj|): the float rounding bound of a dot product of
// length K, whatever order the kernel adds in.
//
// Why the unguarded tiled kernel cannot pass: with K not a multiple of 32, its last tile
// reads B's rows K .. K+31, past the end of B. Row K is the first kGuardElements floats past
// B, which the guard sets to NaN, and that row meets EVERY element of C (for N <= 4,096, as in
// every such case below), so every element becomes NaN. With K a multiple of 32 but M or N
// not, it writes the rows of C past M into C's guards (tall_skinny, non_square_full_k), and
// its columns past N wrap onto the next row of C. Only sizes that are whole tiles in all three
// dimensions let it through: one_tile and whole_tiles are there to show that the bounds
// tests cost nothing in correctness.
#include <string>

#include "call.h"
#include "checker/types/suite.h"
#include "checker/judging/product_check.h"
#include "cudalab/lab5.h"

namespace cudalab {
namespace {

constexpr size_t T = lab5::kTile;

// One thread per element of C: (row, col) is thread (col % 32, row % 32) of block
// (col / 32, row / 32).
const ProductLab kLab{lab5_call::kCall, T, T, [](size_t row, size_t col) {
                        return "thread (" + std::to_string(col % T) + ", " + std::to_string(row % T) + ")";
                      }};

std::vector<CheckCase> cases() {
  return {
      {"one_by_one", "1 x 1 x 1: a single product, one busy thread", mnk(1, 1, 1)},
      {"one_tile", "32 x 32 x 32: exactly one tile, nothing to cut off", mnk(T, T, T)},
      {"tile_plus_one", "33 x 33 x 33: one past a tile in every dimension", mnk(T + 1, T + 1, T + 1)},
      {"k_below_tile", "K = 7, smaller than a tile: the only k-tile is partial", mnk(64, 64, 7)},
      {"row_times_matrix", "M = 1: one row of A times B (1 x N output)", mnk(1, 3000, 50)},
      {"matrix_times_column", "N = 1: A times one column of B (M x 1 output)", mnk(3000, 1, 50)},
      {"non_square", "M 300, N 200, K 100: three different sizes", mnk(300, 200, 100)},
      {"non_square_full_k", "M 100, N 70, K 64: K whole tiles, M and N not", mnk(100, 70, 64)},
      {"tall_skinny", "M 4001, N 16, K 64: tall and skinny, K whole tiles", mnk(4001, 16, 64)},
      {"classic_1000", "1000 x 1000 x 1000: the classic trap (1000 = 31.25 tiles)", mnk(1000, 1000, 1000)},
      {"whole_tiles", "M 256, N 512, K 1024: whole tiles everywhere, rectangular", mnk(256, 512, 1024)},
      {"large_odd_sampled", "M 2049, N 3001, K 2500: large and odd (24 sampled rows of C checked)",
       mnk(2049, 3001, 2500), true},
      {"timed_size_sampled", "4096 x 4096 x 4096: the timed size (24 sampled rows of C checked)", mnk(4096, 4096, 4096),
       true},
  };
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  return run_product_check(calls, kLab, c, seed);
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite = product_suite(kLab, "the bounds-checked tiled matrix product", cases(), run);
  return suite;
}

}  // namespace cudalab
