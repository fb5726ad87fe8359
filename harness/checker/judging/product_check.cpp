#include "product_check.h"

#include <cmath>
#include <string>
#include <vector>

#include "diagnose.h"
#include "matrix_reference.h"
#include "tolerance.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/guard_verdicts.h"

namespace cudalab {
namespace {

// Products above this many multiply-adds are checked on sampled rows of C, so that the
// CPU reference stays well under a second. (1000^3 = 10^9 is checked in full.)
constexpr double kFullReferenceWork = 4.0e9;
constexpr size_t kSampledRows = 24;

// Element (row, col) of C belongs to block (col / tile, row / tile); the thread, when the lab
// fixes it, is the lab's to say. `rows` maps the compared rows back to C's rows (they are a
// sample for large products).
// T is the launch's own tile when it shows one (a 16 x 16 product), the lab's otherwise; the
// lab's thread names hold only for its own tile.
// TN: the tile's columns (lab.tile_n for a lab with non-square tiles, else T).
OutputLayout product_layout(const ProductLab& lab, size_t N, const std::vector<size_t>& rows, bool sampled, size_t T,
                            size_t TN) {
  OutputLayout l;
  if (!sampled) {
    l.rows = rows.size();
    l.cols = N;
    l.tile = T;
    l.tile_cols = TN;
  }
  l.block_of = [N, T, TN, &rows](size_t i) { return tile_block_name(rows[i / N], i % N, T, TN); };
  if (lab.thread_of && T == lab.tile)
    l.thread_of = [N, &rows, &lab](size_t i) { return lab.thread_of(rows[i / N], i % N); };
  return l;
}

// Does every listed mismatch equal the product with the last, partial slice along k left out
// (a loop over k slices that rounds K / k_step down)?
bool missing_last_k_slice(const CheckResult& r, const std::vector<float>& a, const std::vector<float>& b, size_t N,
                          size_t K, size_t k_step, const ProductRows& ref) {
  if (K % k_step == 0 || r.mismatches.empty()) return false;
  const size_t kept = K - K % k_step;
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

}  // namespace

CheckResult run_product_check(CallContext& calls, const ProductLab& lab, const CheckCase& c, uint64_t seed) {
  const size_t M = c.shape.dims[0], N = c.shape.dims[1], K = c.shape.dims[2];
  const size_t S = lab.k_step;
  // Mixed signs, as real data has; the tolerance scales with sum |a||b|, so cancellation is allowed for.
  const std::vector<float> a = matrix_input(M, K, seed, /*stream=*/1, -1.0f, 1.0f);
  const std::vector<float> b = matrix_input(K, N, seed, /*stream=*/2, -1.0f, 1.0f);

  LabCall call(lab.call);
  call.random_input(kProductA, M * K, wire::uniform_fill(seed, 1, -1.0f, 1.0f));
  call.random_input(kProductB, K * N, wire::uniform_fill(seed, 2, -1.0f, 1.0f));
  const size_t dC = call.output(kProductC, M * N);
  call.scalar(kProductM, int64_t(M));
  call.scalar(kProductN, int64_t(N));
  call.scalar(kProductK, int64_t(K));
  const GridMatrix grid_of{M, N, lab.tile, lab.tile_n, "C", "N", "M"};
  const LabCallResult res =
      run_explained(calls, call, [&](const std::vector<wire::Launch>& l) { return refused_grid_words(l, grid_of); });

  const bool sampled = double(M) * double(N) * double(K) > kFullReferenceWork;
  const ProductRows ref =
      product_reference(a, b, M, N, K, sampled ? sample_rows(M, lab.tile, kSampledRows, seed) : all_rows(M));
  const std::vector<float> all = res.floats(dC);
  std::vector<float> got;
  got.reserve(ref.rows.size() * N);
  for (size_t row : ref.rows) got.insert(got.end(), all.begin() + row * N, all.begin() + (row + 1) * N);

  // A lab with non-square tiles (tile_n) names blocks by its own; the others by the launch's.
  const size_t tile = res.launches.empty() || lab.tile_n ? lab.tile : launch_tile(res.launches.front(), M, N, lab.tile);
  const size_t tile_n = lab.tile_n ? lab.tile_n : tile;
  const OutputLayout layout = product_layout(lab, N, ref.rows, sampled, tile, tile_n);
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
  const bool grid_short = !sampled && add_grid_coverage_note(r, res.launches, grid_of);
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
    if (missing_last_k_slice(r, a, b, N, K, S, ref))
      r.notes.push_back(K < S ? "K = " + std::to_string(K) + " is less than one tile" +
                                    (S == lab.tile ? "" : " along k (" + std::to_string(S) + ")") +
                                    " and nothing was added up: the loop over tiles must run ceil(K / " +
                                    std::to_string(S) + ") times, here once"
                              : "K = " + std::to_string(K) + ": your results equal the sum over the first " +
                                    std::to_string(K - K % S) +
                                    " values of k only. The last tile along k is "
                                    "partial: the loop over tiles must run ceil(K / " +
                                    std::to_string(S) + ") times");
    else if (zeros == got.size())
      r.notes.push_back("every element is exactly 0: was anything accumulated, and written after the k loop?");
    if (c_guards.overwritten && unwritten < got.size())
      r.notes.push_back(
          "a store without its bounds test also writes onto the NEXT row of C when col >= N "
          "(row * N + col wraps around), so it can spoil good elements: fix the store's test first");
  }

  add_guards_and_notes(r, call, res, {{kProductA}, {kProductB}, {kProductC}});
  return r;
}

std::string reject_product_shape(const ProductLab& lab, const Shape& s) {
  const size_t M = s.dims[0], N = s.dims[1], K = s.dims[2];
  const double limit = 2147483648.0;  // 2^31, in double: the products of --size values may not fit 64 bits
  if (double(M) * K >= limit || double(K) * N >= limit || double(M) * N >= limit)
    return "lab " + std::to_string(lab.call.lab) + " takes matrices (M x K, K x N and M x N) below 2^31 elements each";
  const size_t max_m = 65535 * lab.tile;
  if (M > max_m)
    return "M at most " + with_commas(max_m) + ": the grid has one block row per " + std::to_string(lab.tile) +
           " rows of C, and gridDim.y is at most 65,535";
  return "";
}

LabSuite product_suite(const ProductLab& lab, std::string title, std::vector<CheckCase> cases,
                       std::function<CheckResult(CallContext&, const CheckCase&, uint64_t seed)> run) {
  return LabSuite{lab.call.lab, std::move(title), "MxNxK", 3, std::move(cases), std::move(run), [lab](const Shape& s) {
                    return reject_product_shape(lab, s);
                  }};
}

}  // namespace cudalab
