#include "diagnose.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "tolerance.h"
#include "checker/calls/runner_words.h"

namespace cudalab {

bool is_poison(float v) {
  unsigned bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == kPoisonBits;
}

std::string OutputLayout::where(size_t index) const {
  if (rows && cols) return "(row " + std::to_string(index / cols) + ", col " + std::to_string(index % cols) + ")";
  return "[" + std::to_string(index) + "]";
}

namespace {

std::string num(double v) {
  if (std::isnan(v)) return "NaN";
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

// [first, last] of the set bits, and how many.
struct Extent {
  size_t count = 0, first = 0, last = 0;
};
Extent extent(const std::vector<bool>& bits) {
  Extent e;
  for (size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) {
      if (!e.count) e.first = i;
      e.last = i;
      ++e.count;
    }
  return e;
}

bool is_suffix(const Extent& e, size_t n) { return e.count && e.last == n - 1 && e.count == n - e.first; }

// Are all wrong elements in the last partial tile row or column of a 2-D output?
bool only_partial_tiles(const std::vector<bool>& wrong, const OutputLayout& l) {
  if (!(l.rows && l.cols && l.tile)) return false;
  const size_t tile_cols = l.tile_cols ? l.tile_cols : l.tile;
  size_t full_rows = l.rows - l.rows % l.tile, full_cols = l.cols - l.cols % tile_cols;
  if (full_rows == l.rows && full_cols == l.cols) return false;  // no partial tiles at all
  if (full_rows == 0 || full_cols == 0) return false;  // no full tiles: nothing to contrast
  for (size_t i = 0; i < wrong.size(); ++i)
    if (wrong[i] && i / l.cols < full_rows && i % l.cols < full_cols) return false;
  return true;
}

// A wrong sum, explained from the prefix sums p (p[k]: the first k inputs) where the rounding
// tolerance leaves no doubt: a whole aligned block left out (or added twice), or a sum that
// stopped after the first m elements.
void explain_wrong_sum(CheckResult& r, double expected, float got, size_t n, const std::vector<double>& p) {
  // Two explanations compete: a whole aligned block left out (or added twice), and a sum that
  // stopped after the first m elements. Each is named only when the rounding tolerance
  // leaves no doubt: with a wide tolerance (large n) many blocks fit, and naming one of
  // them would send a student to look at the wrong place.
  const double missing = expected - got;  // positive: elements left out; negative: added twice
  std::set<std::pair<size_t, size_t>> fitting;  // distinct [start, end) ranges within tolerance
  size_t block_width = 0;  // the largest width that gives the first one
  double block_err = INFINITY;
  for (size_t width = 32; width <= 4096 && width < n; width *= 2) {
    for (size_t start = 0; start < n; start += width) {
      size_t end = std::min(n, start + width);
      double err = std::fabs(std::fabs(missing) - (p[end] - p[start]));
      if (err > r.tolerance) continue;
      // The same range at a larger width (a tail shorter than every width): name the larger,
      // closer to the block sizes students use.
      if (fitting.insert({start, end}).second) {
        if (fitting.size() == 1) block_width = width, block_err = err;
      } else if (fitting.size() == 1) {
        block_width = width;
      }
      if (fitting.size() > 1) break;
    }
    if (fitting.size() > 1) break;
  }
  // Inputs are positive, so the prefix sums rise: the m with p[m] within tolerance of `got`
  // form one run, found by bisection.
  const size_t m_lo = size_t(std::lower_bound(p.begin(), p.end(), double(got) - r.tolerance) - p.begin());
  const size_t m_hi = std::min(n, size_t(std::upper_bound(p.begin(), p.end(), double(got) + r.tolerance) - p.begin()));
  const bool prefix_fits = missing > 0 && m_lo < m_hi;  // m in [m_lo, m_hi) fit; m = n is the right answer
  if (fitting.size() == 1) {
    const auto [start, end] = *fitting.begin();
    // A sum that stopped before the last block is both; the block is the more specific.
    bool prefix_is_better = prefix_fits && end != n && std::fabs(p[m_lo] - got) < block_err;
    if (!prefix_is_better) {
      bool last = end == n && end - start < block_width;
      r.notes.push_back(std::string("off by exactly the value of one block, it seems: elements [") +
                        with_commas(start) + ", " + with_commas(end) + ") " +
                        (missing > 0 ? "were left out" : "were added twice") + " (with blocks of " +
                        std::to_string(block_width) + " elements, that is block " + with_commas(start / block_width) +
                        (last ? ", the last and partial one)" : ")"));
      return;
    }
  }
  if (prefix_fits) {
    if (m_hi - m_lo == 1)
      r.notes.push_back("your sum equals the sum of the first " + with_commas(m_lo) +
                        " elements: every element from index " + with_commas(m_lo) + " on was left out");
    else
      r.notes.push_back("your sum equals the sum of the first m elements, for an m between " + with_commas(m_lo) +
                        " and " + with_commas(m_hi - 1) +
                        " (rounding allows no closer answer): the elements after them were left out");
  }
}

}  // namespace

std::string describe_pattern(const std::vector<bool>& wrong, const std::vector<bool>& unwritten,
                             const OutputLayout& layout) {
  const size_t n = wrong.size();
  Extent w = extent(wrong), u = extent(unwritten);
  if (!w.count) return "";
  if (u.count == n)
    return "the output was never written (it still holds the harness's NaN poison): is a TODO still in place?";
  if (w.count == n) return "every element is wrong";
  if (u.count == w.count && is_suffix(u, n))
    return "every element from " + layout.where(u.first) + " on was never written: only the first " +
           with_commas(u.first) + " of " + with_commas(n) + (u.first == 1 ? " is covered" : " are covered") +
           (layout.rows ? "" : " (are there enough blocks?)");
  if (is_suffix(w, n)) return "every element past index " + with_commas(w.first - 1) + " is wrong";
  if (only_partial_tiles(wrong, layout)) return "only the last partial tile is wrong: check your bounds";
  if (layout.block_of) {
    std::set<std::string> blocks;
    for (size_t i = 0; i < n && blocks.size() < 4; ++i)
      if (wrong[i]) blocks.insert(layout.block_of(i));
    if (blocks.size() == 1) {
      std::string only = *blocks.begin();
      return "only " + only + " is wrong" + (u.count == w.count ? " (never written)" : "");
    }
  }
  if (w.count == 1) return "a single element is wrong: " + layout.where(w.first);
  if (u.count == w.count)
    return with_commas(u.count) + " elements were never written, the first at " + layout.where(u.first);
  return "";
}

CheckResult compare_outputs(const std::vector<double>& expected, const std::vector<float>& got,
                            const ToleranceAt& tolerance, const OutputLayout& layout, size_t show) {
  CheckResult r;
  const size_t n = expected.size();
  std::vector<bool> wrong(n), unwritten(n);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double tol = tolerance ? tolerance(i) : 0.0;
    r.tolerance = std::max(r.tolerance, tol);
    bool ok = tolerance ? within(expected[i], got[i], tol) : double(got[i]) == expected[i];
    if (ok) {
      r.max_error = std::max(r.max_error, std::fabs(got[i] - expected[i]));
      continue;
    }
    wrong[i] = true;
    unwritten[i] = is_poison(got[i]);
    r.max_error = std::isfinite(got[i]) ? std::max(r.max_error, std::fabs(got[i] - expected[i])) : INFINITY;
    if (bad++ < show) {
      Mismatch m{i, layout.where(i), expected[i], got[i], ""};
      if (layout.block_of) m.owner = layout.block_of(i);
      if (layout.thread_of) m.owner += (m.owner.empty() ? "" : ", ") + layout.thread_of(i);
      r.mismatches.push_back(m);
    }
  }
  if (!bad) {
    r.status = Status::Pass;
    r.message = (n == 1 ? std::string("the single value is") : "all " + with_commas(n) + " " + layout.noun + " are") +
                (tolerance ? " within tolerance" : " exactly right");
    return r;
  }
  r.status = Status::Fail;
  // Unwritten only when every wrong element still holds the poison: a stub, or a grid too small.
  r.cause = std::count(unwritten.begin(), unwritten.end(), true) == std::ptrdiff_t(bad) ? Cause::UnwrittenOutput
                                                                                        : Cause::WrongValues;
  r.message = with_commas(bad) + " of " + with_commas(n) + " " + layout.noun + " wrong";
  std::string pattern = describe_pattern(wrong, unwritten, layout);
  if (!pattern.empty()) r.message += ": " + pattern;
  return r;
}

CheckResult check_sum(double expected, double abs_sum, float got, size_t n, const std::vector<double>* prefix) {
  CheckResult r;
  r.tolerance = sum_tolerance(n, abs_sum);
  double err = std::fabs(double(got) - expected);
  r.max_error = std::isfinite(got) ? err : INFINITY;
  Mismatch m{0, "sum", expected, got, ""};
  if (within(expected, got, r.tolerance)) {
    r.status = Status::Pass;
    // The error first, then what rounding allows: a reader looks for how far off the sum is.
    r.message = "sum right: off by " + num(err) + " from the exact " + num(expected) + " (rounding allows " +
                num(r.tolerance) + ")";
    return r;
  }
  r.status = Status::Fail;
  r.cause = is_poison(got) ? Cause::UnwrittenOutput : Cause::WrongValues;
  r.mismatches.push_back(m);
  if (is_poison(got)) {
    r.message = "the sum was never written: the result still holds the harness's NaN poison";
    return r;
  }
  if (!std::isfinite(got)) {
    r.message = "the sum is " + num(got) +
                ": something read memory that was never written (shared memory, scratch, or past the input's end?)";
    return r;
  }
  r.message = "sum is " + num(got) + ", expected " + num(expected) + " (off by " + num(double(got) - expected) +
              ", tolerance " + num(r.tolerance) + ")";
  if (got == 0.0f) {
    r.notes.push_back("the result is exactly 0: was anything added up at all?");
    return r;
  }
  if (std::fabs(double(got) - 2 * expected) <= 2 * r.tolerance) {
    r.notes.push_back("that is twice the right answer: every value was added twice");
    return r;
  }
  if (!prefix || prefix->size() != n + 1) return r;
  explain_wrong_sum(r, expected, got, n, *prefix);
  return r;
}

size_t launch_tile(const wire::Launch& l, size_t rows, size_t cols, size_t lab_tile) {
  const auto fits = [&](size_t t) {
    const auto near = [t](size_t g, size_t dim) { return g == dim / t || g == (dim + t - 1) / t; };
    return t >= 4 && near(l.grid[0], cols) && near(l.grid[1], rows);
  };
  // A 2-D block's x extent first: CS179's 64 x 16 blocks move 64 x 64 tiles, the notebook's
  // 32 x 8 ones 32 x 32, a 16 x 16 product's 16 x 16.
  if (l.block[1] > 1 && fits(l.block[0])) return l.block[0];
  if (fits(lab_tile)) return lab_tile;
  if (fits(l.block[1])) return l.block[1];
  return lab_tile;
}

namespace {

// "100 / 64 rounds down to 1 across", or "1 across where 2 are needed".
std::string short_side(size_t g, size_t dim, size_t t, const char* side) {
  if (g == dim / t)
    return with_commas(dim) + " / " + std::to_string(t) + " rounds down to " + with_commas(g) + " " + side;
  const size_t need = (dim + t - 1) / t;
  return with_commas(g) + " " + side + " where " + with_commas(need) + (need == 1 ? " is needed" : " are needed");
}

struct Shortfall {
  size_t tile = 0, tile_x = 0, need_x = 0, need_y = 0;  // tile: its rows (0: no shortfall), tile_x: its columns
  std::string sides;  // "100 / 64 rounds down to 1 across, and ..."
  std::string round_up;  // "Round up: (cols + 63) / 64 blocks across, (rows + 63) / 64 down"
};

// Where the first launch's grid falls short of a rows x cols matrix in its own tiles (tile 0:
// it covers the matrix).
Shortfall shortfall(const wire::Launch& l, const GridMatrix& m) {
  Shortfall s;
  // A lab with non-square tiles (lab_tile_cols): its own tile; otherwise the launch's square one.
  const size_t t = m.lab_tile_cols ? m.lab_tile : launch_tile(l, m.rows, m.cols, m.lab_tile);
  const size_t tx = m.lab_tile_cols ? m.lab_tile_cols : t;
  s.need_x = (m.cols + tx - 1) / tx, s.need_y = (m.rows + t - 1) / t;
  const bool short_x = l.grid[0] < s.need_x, short_y = l.grid[1] < s.need_y;
  if (!short_x && !short_y) return s;
  s.tile = t, s.tile_x = tx;
  if (short_x) s.sides = short_side(l.grid[0], m.cols, tx, "across");
  if (short_y) s.sides += (short_x ? ", and " : "") + short_side(l.grid[1], m.rows, t, "down");
  const std::string tt = std::to_string(t), t1 = std::to_string(t - 1);
  const std::string txs = std::to_string(tx), tx1 = std::to_string(tx - 1);
  s.round_up = "Round up: (" + std::string(m.cols_name) + " + " + tx1 + ") / " + txs + " blocks across, (" +
               m.rows_name + " + " + t1 + ") / " + tt + " down";
  return s;
}

// "a 64 x 100 matrix", "C (100 x 70)".
std::string matrix_phrase(const GridMatrix& m) {
  const std::string size = with_commas(m.rows) + " x " + with_commas(m.cols);
  return m.what == "matrix" ? "a " + size + " matrix" : m.what + " (" + size + ")";
}

}  // namespace

std::string refused_grid_words(const std::vector<wire::Launch>& launches, const GridMatrix& m) {
  if (launches.empty()) return "";
  const wire::Launch& l = launches.back();  // the refused one: nothing ran after it
  if (l.grid[0] && l.grid[1] && l.grid[2]) return "";
  const Shortfall s = shortfall(l, m);
  if (!s.tile) return "";
  return "for " + matrix_phrase(m) + " your grid has " + dims_text(l.grid) + " blocks of " + dims_text(l.block) +
         " threads (" + s.sides + "): a grid needs at least one block each way. " + s.round_up;
}

bool add_grid_coverage_note(CheckResult& r, const std::vector<wire::Launch>& launches, const GridMatrix& m) {
  if (r.status != Status::Fail || launches.empty()) return false;
  const wire::Launch& l = launches.front();
  const Shortfall s = shortfall(l, m);
  if (!s.tile) return false;
  // One story, the grid's: a pattern ("check your bounds", "never written") would send the
  // student to the wrong place.
  r.message = r.message.substr(0, r.message.find(": ")) + ": your grid is too small (" + s.sides + ")";
  const std::string tt = std::to_string(s.tile) + " x " + std::to_string(s.tile_x);
  r.notes.insert(r.notes.begin(), "your grid has " + dims_text(l.grid) + " blocks of " + dims_text(l.block) +
                                      " threads, but " + matrix_phrase(m) + " in tiles of " + tt + " needs " +
                                      with_commas(s.need_x) + " x " + with_commas(s.need_y) +
                                      ": the last, partial tiles have no block (" + s.sides + "). " + s.round_up);
  return true;
}

void add_canary_verdict(CheckResult& r, const std::string& buffer, size_t n, size_t overwritten,
                        size_t first_overwritten) {
  if (!overwritten) return;
  std::string line = "wrote past the end of " + buffer + ": " + with_commas(overwritten) + " guard element" +
                     (overwritten == 1 ? " was" : "s were") + " overwritten after its last element [" +
                     with_commas(n - 1) + "] (the first at [" + with_commas(first_overwritten) +
                     "]): a thread without a bounds check?";
  if (r.status == Status::Pass) {
    r.status = Status::Fail;
    r.cause = Cause::WrotePastEnd;
    r.message = line;
  } else {
    r.notes.push_back(line);
  }
}

}  // namespace cudalab
