// Lab 4's checks: the padded-tile transpose, compared element by element for exact equality
// (a transpose only moves values: any difference at all is a bug).
//
// The sizes walk through every way a tile can be cut short: a single element, exactly one
// tile, one past a tile, partial tiles on the right or the bottom only, single rows and
// columns (where the transpose is the same bytes, so only the bounds can go wrong),
// rectangles both ways, and the timed size.
#include <cmath>
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/guard_verdicts.h"
#include "checker/types/suite.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/matrix_reference.h"
#include "cudalab/lab4.h"

namespace cudalab {
namespace {

constexpr size_t T = lab4::kTile;
constexpr size_t R = lab4::kBlockRows;
// gridDim.y is at most 65,535 and the lab puts the input's tile rows there.
constexpr size_t kMaxRows = 65535 * T;

std::vector<CheckCase> cases() {
  return {
      {"one_by_one", "1 x 1: one element, one busy thread", Shape{{1, 1}}},
      {"one_tile", "32 x 32: exactly one tile, nothing to cut off", Shape{{T, T}}},
      {"tile_plus_one", "33 x 33: one row and one column past a tile", Shape{{T + 1, T + 1}}},
      {"odd_rectangle", "33 x 31: rectangular, both edges partial", Shape{{33, 31}}},
      {"partial_columns", "64 x 100: full tiles down, the last tile column partial", Shape{{64, 100}}},
      {"partial_rows", "100 x 64: full tiles across, the last tile row partial", Shape{{100, 64}}},
      {"single_row", "1 x 5000: one row becomes one column", Shape{{1, 5000}}},
      {"single_column", "5000 x 1: one column becomes one row", Shape{{5000, 1}}},
      {"wide", "77 x 3001: wide, every edge partial", Shape{{77, 3001}}},
      {"tall", "3001 x 77: tall, every edge partial", Shape{{3001, 77}}},
      {"classic_1000", "1000 x 1000: the classic size that is not a multiple of 32", Shape{{1000, 1000}}},
      {"full_tiles", "1024 x 2048: rectangular, full tiles only", Shape{{1024, 2048}}},
      {"timed_size", "10000 x 10000: the timed size (400 MB each way)", Shape{{10000, 10000}}, true},
  };
}

// The output is cols x rows. Its element (orow, ocol) is the input's (ocol, orow); the lab's
// mapping gives it to the block that reads input tile (orow / T, ocol / T) and, within it, to
// thread (ocol % T, orow % R), which writes output rows ty, ty + 8, ty + 16, ty + 24 of the tile.
// T and R are the launch's own when it shows them (64 x 64 tiles of 64 x 16 blocks, as CS179
// teaches), the notebook's 32 and 8 otherwise.
OutputLayout transpose_layout(size_t rows, size_t cols, size_t T, size_t R) {
  OutputLayout l;
  l.rows = cols;
  l.cols = rows;
  l.tile = T;
  l.block_of = [rows, T](size_t i) { return tile_block_name(i % rows, i / rows, T); };
  l.thread_of = [rows, T, R](size_t i) {
    size_t orow = i / rows, ocol = i % rows;
    return "thread (" + std::to_string(ocol % T) + ", " + std::to_string(orow % R) + "), its write " +
           std::to_string((orow % T) / R + 1) + " of " + std::to_string(T / R);
  };
  return l;
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  const size_t rows = c.shape.dims[0], cols = c.shape.dims[1], n = rows * cols;
  // Values in [1, 2): never zero, and (almost all) distinct, so a misplaced element shows.
  const std::vector<float> input = matrix_input(rows, cols, seed, /*stream=*/1, 1.0f, 2.0f);

  LabCall call(lab4_call::kCall);
  call.random_input(lab4_call::kIn, n, wire::uniform_fill(seed, 1, 1.0f, 2.0f));
  const size_t out = call.output(lab4_call::kOut, n);
  call.scalar(lab4_call::kRows, int64_t(rows));
  call.scalar(lab4_call::kCols, int64_t(cols));
  const GridMatrix grid_of{rows, cols, lab4::kTile};
  const LabCallResult res =
      run_explained(calls, call, [&](const std::vector<wire::Launch>& l) { return refused_grid_words(l, grid_of); });

  const std::vector<double> expected = transpose_reference(input, rows, cols);
  const std::vector<float> got = res.floats(out);
  size_t tile = T, block_rows = R;
  if (!res.launches.empty()) {
    const wire::Launch& l = res.launches.front();
    tile = launch_tile(l, rows, cols, T);
    if (tile == l.block[0] && l.block[1] >= 1 && l.block[1] <= tile && tile % l.block[1] == 0) block_rows = l.block[1];
  }
  CheckResult r = compare_outputs(expected, got, nullptr, transpose_layout(rows, cols, tile, block_rows));

  const GuardState out_guards = res.guards[out];
  // The grid walks the input's tiles: cols / 32 across, rows / 32 down (rounded up; the launch's
  // own tile when it shows another).
  const bool grid_short = add_grid_coverage_note(r, res.launches, grid_of);
  if (r.status == Status::Fail && !grid_short) {
    size_t nan = 0, copied = 0, unwritten = 0;
    for (size_t i = 0; i < n; ++i) {
      if (is_poison(got[i]))
        ++unwritten;
      else if (std::isnan(got[i]))
        ++nan;
      if (got[i] == input[i]) ++copied;
    }
    if (nan)
      r.notes.push_back(
          "NaN that is not the poison came from reading past the end of the input (the harness "
          "puts NaN there): load only elements whose row < rows and column < cols");
    // With one row or one column, the transpose is the same bytes as the input: no hint then.
    if (rows > 1 && cols > 1 && copied > n / 2 && copied > 4)
      r.notes.push_back(
          "most of your output equals the input in the same order: it was copied, not transposed "
          "(read tile[threadIdx.x][...] on the way out, and swap blockIdx.x and blockIdx.y)");
    // Bounds symptoms (gaps, or stores past the end) on a rectangle: the classic rows/cols mix-up.
    if (rows != cols && unwritten < n && (unwritten > 0 || out_guards.overwritten > 0))
      r.notes.push_back(
          "rows != cols here: the output has cols rows and rows columns. Every load and every store "
          "needs a bounds test, and each must compare with the right one (the input's rows and cols, "
          "or the output's, which are swapped)");
  }

  add_guards_and_notes(r, call, res, {{out}, {lab4_call::kIn}});
  return r;
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite{
      4,
      "the padded-tile transpose",
      "ROWSxCOLS",
      2,
      cases(),
      run,
      [](const Shape& s) -> std::string {
        // In double: the product of two --size values may not fit 64 bits.
        if (double(s.dims[0]) * double(s.dims[1]) >= 2147483648.0) return "lab 4 takes rows x cols below 2^31 elements";
        if (s.dims[0] > kMaxRows)
          return "at most " + with_commas(kMaxRows) +
                 " rows: the grid has one block row per 32 rows, and "
                 "gridDim.y is at most 65,535";
        return "";
      },
  };
  return suite;
}

}  // namespace cudalab
