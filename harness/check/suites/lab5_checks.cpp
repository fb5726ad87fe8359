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
#include <cmath>
#include <string>

#include "cudalab/lab5.h"
#include "diagnose.h"
#include "lab_call.h"
#include "matrix_reference.h"
#include "suite.h"
#include "tolerance.h"

namespace cudalab {
namespace {

constexpr size_t T = lab5::kTile;
// Products above this many multiply-adds are checked on sampled rows of C, so that the
// CPU reference stays well under a second. (1000^3 = 10^9 is checked in full.)
constexpr double kFullReferenceWork = 4.0e9;
constexpr size_t kSampledRows = 24;
// gridDim.y is at most 65,535 and the lab puts C's tile rows there.
constexpr size_t kMaxM = 65535 * T;

Shape mnk(size_t M, size_t N, size_t K) { return Shape{{M, N, K}}; }

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

// Element (row, col) of C belongs to block (col / 32, row / 32), thread (col % 32, row % 32).
// `rows` maps the compared rows back to C's rows (they are a sample for large products).
OutputLayout product_layout(size_t N, const std::vector<size_t>& rows, bool sampled) {
  OutputLayout l;
  if (!sampled) {
    l.rows = rows.size();
    l.cols = N;
    l.tile = T;
  }
  l.block_of = [N, &rows](size_t i) { return tile_block_name(rows[i / N], i % N, T); };
  l.thread_of = [N, &rows](size_t i) {
    return "thread (" + std::to_string(i % N % T) + ", " + std::to_string(rows[i / N] % T) + ")";
  };
  return l;
}

// Does every listed mismatch equal the product with the last, partial tile along k left out
// (a loop over tiles that rounds K / 32 down)?
bool missing_last_k_tile(const CheckResult& r, const std::vector<float>& a, const std::vector<float>& b, size_t N,
                         size_t K, const ProductRows& ref) {
  if (K % T == 0 || r.mismatches.empty()) return false;
  const size_t kept = K - K % T;
  for (const Mismatch& m : r.mismatches) {
    if (!std::isfinite(m.got)) return false;
    const size_t row = ref.rows[m.index / N], col = m.index % N;
    double partial = 0;
    for (size_t k = 0; k < kept; ++k) partial += double(a[row * K + k]) * double(b[k * N + col]);
    if (!within(partial, m.got, dot_tolerance(K, ref.abs_dot[m.index]))) return false;
  }
  return true;
}

std::string row_list(const std::vector<size_t>& rows) {
  std::string s;
  for (size_t i = 0; i < rows.size(); ++i) s += (i ? ", " : "") + std::to_string(rows[i]);
  return s;
}

CheckResult run(const CheckCase& c, uint64_t seed) {
  const size_t M = c.shape.dims[0], N = c.shape.dims[1], K = c.shape.dims[2];
  // Mixed signs, as real data has; the tolerance scales with sum |a||b|, so cancellation is allowed for.
  const std::vector<float> a = matrix_input(M, K, seed, /*stream=*/1, -1.0f, 1.0f);
  const std::vector<float> b = matrix_input(K, N, seed, /*stream=*/2, -1.0f, 1.0f);

  LabCall call("lab5::matmul", 5);
  call.random_input("A", wire::ElemType::F32, M * K, uniform_fill(seed, 1, -1.0f, 1.0f));
  call.random_input("B", wire::ElemType::F32, K * N, uniform_fill(seed, 2, -1.0f, 1.0f));
  const size_t dC = call.output("d_C", wire::ElemType::F32, M * N);
  call.scalar(int64_t(M));
  call.scalar(int64_t(N));
  call.scalar(int64_t(K));
  const LabCallResult res = call.run();

  const bool sampled = double(M) * double(N) * double(K) > kFullReferenceWork;
  const ProductRows ref =
      product_reference(a, b, M, N, K, sampled ? sample_rows(M, T, kSampledRows, seed) : all_rows(M));
  const std::vector<float> all = res.floats(dC);
  std::vector<float> got;
  got.reserve(ref.rows.size() * N);
  for (size_t row : ref.rows) got.insert(got.end(), all.begin() + row * N, all.begin() + (row + 1) * N);

  const OutputLayout layout = product_layout(N, ref.rows, sampled);
  CheckResult r = compare_outputs(
      ref.value, got, [&](size_t i) { return dot_tolerance(K, ref.abs_dot[i]); }, layout);
  if (sampled) {
    // compare_outputs saw only the sampled rows: put C's own row numbers in the mismatches.
    for (auto& m : r.mismatches)
      m.where = "(row " + std::to_string(ref.rows[m.index / N]) + ", col " + std::to_string(m.index % N) + ")";
    r.message = "sampled rows: " + r.message;
    r.notes.push_back("checked rows of C: " + row_list(ref.rows));
  }

  const GuardState c_guards = res.guards[dC];
  const bool grid_short = !sampled && add_grid_coverage_note(r, res.launches, N, M, T);
  if (r.status == Status::Fail && !grid_short) {
    size_t nan = 0, zeros = 0, unwritten = 0;
    for (float v : got) {
      if (is_poison(v))
        ++unwritten;
      else if (std::isnan(v))
        ++nan;
      else if (v == 0.0f)
        ++zeros;
    }
    if (nan)
      r.notes.push_back(with_commas(nan) + (nan == 1 ? " element is" : " elements are") +
                        " NaN: a tile load read past the end of A or B (the harness puts NaN there). Load 0 into "
                        "the tile where the row or column is outside the matrix: then the extra products add nothing");
    if (missing_last_k_tile(r, a, b, N, K, ref))
      r.notes.push_back(K < T ? "K = " + std::to_string(K) +
                                    " is less than one tile and nothing was added up: the "
                                    "loop over tiles must run ceil(K / 32) times, here once"
                              : "K = " + std::to_string(K) + ": your results equal the sum over the first " +
                                    std::to_string(K - K % T) +
                                    " values of k only. The last tile along k is "
                                    "partial: the loop over tiles must run ceil(K / 32) times");
    else if (zeros == got.size())
      r.notes.push_back("every element is exactly 0: was anything accumulated, and written after the k loop?");
    if (c_guards.overwritten && unwritten < got.size())
      r.notes.push_back(
          "a store without its bounds test also writes onto the NEXT row of C when col >= N "
          "(row * N + col wraps around), so it can spoil good elements: fix the store's test first");
  }

  add_guard_verdicts(r, call, res);
  for (const auto& note : res.notes) r.notes.push_back(note);
  return r;
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite{
      5,
      "the bounds-checked tiled matrix product",
      "MxNxK",
      3,
      cases(),
      run,
      [](const Shape& s) -> std::string {
        const size_t M = s.dims[0], N = s.dims[1], K = s.dims[2];
        const double limit = 2147483648.0;  // 2^31, in double: the products of --size values may not fit 64 bits
        if (double(M) * K >= limit || double(K) * N >= limit || double(M) * N >= limit)
          return "lab 5 takes matrices (M x K, K x N and M x N) below 2^31 elements each";
        if (M > kMaxM)
          return "M at most " + with_commas(kMaxM) +
                 ": the grid has one block row per 32 rows of C, and "
                 "gridDim.y is at most 65,535";
        return "";
      },
  };
  return suite;
}

}  // namespace cudalab
