// Turns a wrong output into sentences a student can act on: which elements, which block
// and thread own them, and the pattern when there is one.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "checker/types/number_words.h"
#include "checker/types/suite.h"
#include "wire/protocol.h"

namespace cudalab {

// Bits the harness fills outputs with before every run (a quiet NaN). An element that
// still holds them afterwards was never written.
constexpr unsigned kPoisonBits = 0xFFFFFFFFu;
bool is_poison(float v);

// How output elements map onto the launch, for messages. All members optional.
struct OutputLayout {
  size_t rows = 0, cols = 0;  // a 2-D row-major output when both are set
  size_t tile = 0;  // tiles of this size (2-D), for "last partial tile"...
  size_t tile_cols = 0;  // ...this many columns wide when not 0 (else square)
  std::string noun = "elements";  // what the output holds: "elements", "block sums"
  std::function<std::string(size_t)> block_of;  // "block 3" / "block (31, 0)"
  std::function<std::string(size_t)> thread_of;  // "thread 17" / "thread (7, 3)"
  std::string where(size_t index) const;  // "[17]" or "(row 3, col 7)"
};

using ToleranceAt = std::function<double(size_t)>;  // nullptr: exact comparison

// Compares got against expected element by element; fills status, message, notes,
// max_error, tolerance (the largest allowed) and the first `show` mismatches.
CheckResult compare_outputs(const std::vector<double>& expected, const std::vector<float>& got,
                            const ToleranceAt& tolerance, const OutputLayout& layout, size_t show = 5);

// The pattern sentence for a set of wrong indices (exposed for tests).
// wrong[i] and unwritten[i] say whether element i is wrong / never written.
std::string describe_pattern(const std::vector<bool>& wrong, const std::vector<bool>& unwritten,
                             const OutputLayout& layout);

// A scalar sum. `prefix`, when given, holds prefix[k] = sum of the first k inputs
// (size n + 1) and `values` the inputs, so that a wrong sum can be explained
// ("equals the sum of the first m elements", "off by exactly one block of 256").
CheckResult check_sum(double expected, double abs_sum, float got, size_t n, const std::vector<double>* prefix);

// A 2-D output walked by a 2-D grid of tiles (cols across, in x; rows down, in y), as the
// feedback names it: what = "matrix" ("a 64 x 100 matrix") or "C" ("C (64 x 100)"), cols_name =
// "cols" or "N".
struct GridMatrix {
  size_t rows = 0, cols = 0;
  size_t lab_tile = 32;  // the notebook's tile, when the launch does not show another...
  size_t lab_tile_cols = 0;  // ...this many columns wide when not 0 (lab 9's 128 x 256), else square
  std::string what = "matrix";
  const char* cols_name = "cols";
  const char* rows_name = "rows";
};
// The tile the launch's blocks cover: blockDim.x of a 2-D block, the lab's tile or blockDim.y,
// whichever gives the grid's count of tiles (rounded up or down); the lab's tile otherwise.
size_t launch_tile(const wire::Launch& l, size_t rows, size_t cols, size_t lab_tile);
// From the runner's launch record: when the first launch's grid has fewer blocks than the
// matrix has tiles (of the launch's own size), says so, with the division that rounded down,
// and returns true; the bounds hints that would otherwise be given are then beside the point.
bool add_grid_coverage_note(CheckResult& r, const std::vector<wire::Launch>& launches, const GridMatrix& m);
// For a launch CUDA refused with a grid of 0 blocks (the record's last): "for a 1 x 1 matrix
// your grid has 0 x 0 blocks of 64 x 16 threads: 1 / 64 rounds down to 0 across, ..."; "" when
// the last launch has blocks.
std::string refused_grid_words(const std::vector<wire::Launch>& launches, const GridMatrix& m);

// Adds the verdict of the guard elements after an output (count overwritten, first index).
void add_canary_verdict(CheckResult& r, const std::string& buffer, size_t n, size_t overwritten,
                        size_t first_overwritten);

}  // namespace cudalab
