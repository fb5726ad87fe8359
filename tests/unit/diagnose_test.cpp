#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"

using namespace cudalab;

static float poison() {
  float f;
  unsigned bits = kPoisonBits;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST_CASE("an untouched output is reported as never written") {
  std::vector<double> expected(100, 1.0);
  std::vector<float> got(100, poison());
  CheckResult r = compare_outputs(expected, got, nullptr, {});
  CHECK(r.status == Status::Fail);
  CHECK(r.message.find("never written") != std::string::npos);
  CHECK(r.mismatches.size() == 5);
}

TEST_CASE("a correct output passes and reports how many elements were compared") {
  std::vector<double> expected{1, 2, 3};
  std::vector<float> got{1, 2, 3};
  CheckResult r = compare_outputs(expected, got, nullptr, {});
  CHECK(r.status == Status::Pass);
  CHECK(r.message == "all 3 elements are exactly right");
}

TEST_CASE("a tail that was never written points at grid coverage") {
  std::vector<double> expected(2000, 1.0);
  std::vector<float> got(2000, 1.0f);
  for (size_t i = 1024; i < 2000; ++i) got[i] = poison();
  CheckResult r = compare_outputs(expected, got, nullptr, {});
  CHECK(r.message.find("from [1024] on was never written") != std::string::npos);
  CHECK(r.message.find("enough blocks") != std::string::npos);
}

TEST_CASE("a wrong tail is described by its first index") {
  std::vector<double> expected(3000, 1.0);
  std::vector<float> got(3000, 1.0f);
  for (size_t i = 1048; i < 3000; ++i) got[i] = 2.0f;
  CheckResult r = compare_outputs(expected, got, nullptr, {});
  CHECK(r.message.find("every element past index 1,047 is wrong") != std::string::npos);
}

TEST_CASE("errors confined to the last partial tile blame the bounds") {
  OutputLayout l;
  l.rows = 40;
  l.cols = 40;
  l.tile = 32;
  std::vector<double> expected(1600, 1.0);
  std::vector<float> got(1600, 1.0f);
  got[35 * 40 + 3] = 7.0f;  // row 35: inside the partial tile row
  got[2 * 40 + 39] = 7.0f;  // col 39: inside the partial tile column
  CHECK(describe_pattern(
            [&] {
              std::vector<bool> w(1600);
              w[35 * 40 + 3] = w[2 * 40 + 39] = true;
              return w;
            }(),
            std::vector<bool>(1600), l) == "only the last partial tile is wrong: check your bounds");
  CheckResult r = compare_outputs(expected, got, nullptr, l);
  CHECK(r.mismatches[0].where == "(row 2, col 39)");
}

TEST_CASE("a single wrong block is named with its owner") {
  OutputLayout l;
  l.block_of = [](size_t i) { return "block " + std::to_string(i / 256); };
  l.thread_of = [](size_t i) { return "thread " + std::to_string(i % 256); };
  std::vector<double> expected(1024, 1.0);
  std::vector<float> got(1024, 1.0f);
  got[600] = 0.0f;
  got[700] = 0.0f;
  CheckResult r = compare_outputs(expected, got, nullptr, l);
  CHECK(r.message.find("only block 2 is wrong") != std::string::npos);
  CHECK(r.mismatches[0].owner == "block 2, thread 88");
}

TEST_CASE("tolerance: within passes, beyond fails, and the bound is reported") {
  std::vector<double> expected{1.0, 1.0};
  std::vector<float> got{1.001f, 1.1f};
  CheckResult r = compare_outputs(expected, got, [](size_t) { return 0.01; }, {});
  CHECK(r.status == Status::Fail);
  CHECK(r.mismatches.size() == 1);
  CHECK(r.mismatches[0].index == 1);
  CHECK(r.tolerance == doctest::Approx(0.01));
}

TEST_CASE("sum diagnosis: a truncated sum names how many elements were added") {
  std::vector<float> x = sum_input(100000, 3);
  SumReference ref = sum_reference(x);
  std::vector<double> p = prefix_sums(x);
  CheckResult r = check_sum(ref.sum, ref.abs_sum, float(p[65536]), x.size(), &p);
  CHECK(r.status == Status::Fail);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("first 65,536 elements") != std::string::npos);
}

TEST_CASE("sum diagnosis: off by one block") {
  // Every 512-element block has its own sum (values rise by 1/64 from block to block) and
  // no block of another width comes near it, so exactly one block fits what is missing.
  std::vector<float> x(3000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0f + 0.015625f * float(i / 512);
  SumReference ref = sum_reference(x);
  std::vector<double> p = prefix_sums(x);
  double missing_block = p[3 * 512] - p[2 * 512];  // block 2 of 512 left out
  CheckResult r = check_sum(ref.sum, ref.abs_sum, float(ref.sum - missing_block), x.size(), &p);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("one block") != std::string::npos);
  CHECK(r.notes[0].find("[1,024, 1,536)") != std::string::npos);
}

TEST_CASE("sum inputs: a forgotten last element shows even where the tolerance is wide") {
  // n = 2^20 + 1: the element that needs one more block (or level). Its value is far above
  // the tolerance of a sum this long, and the note names where the sum stopped.
  const size_t n = (size_t(1) << 20) + 1;
  std::vector<float> x = sum_input(n, 5);
  CHECK(x[n - 1] >= 32768.0f);
  CHECK(x[0] >= 0.5f);
  CHECK(x[0] < 1.5f);
  SumReference ref = sum_reference(x);
  std::vector<double> p = prefix_sums(x);
  CheckResult r = check_sum(ref.sum, ref.abs_sum, float(p[n - 1]), n, &p);
  CHECK(r.status == Status::Fail);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("1,048,576") != std::string::npos);
}

TEST_CASE("sum diagnosis: no block is named where the tolerance cannot tell which") {
  // At 2^20 elements the tolerance (about 5) is wider than the spread of 32-element block
  // sums, so hundreds of blocks fit a missing one; naming any would mislead.
  const size_t n = size_t(1) << 20;
  std::vector<float> x = sum_input(n, 11);
  SumReference ref = sum_reference(x);
  std::vector<double> p = prefix_sums(x);
  const size_t lost = 12345;  // block 12,345 of 32 elements
  double missing = p[(lost + 1) * 32] - p[lost * 32];
  CheckResult r = check_sum(ref.sum, ref.abs_sum, float(ref.sum - missing), n, &p);
  CHECK(r.status == Status::Fail);
  for (const auto& note : r.notes) CHECK(note.find("one block") == std::string::npos);
}

TEST_CASE("sum diagnosis: poison, NaN, zero, double counting, and a pass") {
  std::vector<float> x = sum_input(1000, 1);
  SumReference ref = sum_reference(x);
  CHECK(check_sum(ref.sum, ref.abs_sum, poison(), 1000, nullptr).message.find("never written") != std::string::npos);
  CHECK(check_sum(ref.sum, ref.abs_sum, std::nanf(""), 1000, nullptr).message.find("NaN") != std::string::npos);
  CHECK(check_sum(ref.sum, ref.abs_sum, 0.0f, 1000, nullptr).notes.at(0).find("exactly 0") != std::string::npos);
  CHECK(check_sum(ref.sum, ref.abs_sum, float(2 * ref.sum), 1000, nullptr).notes.at(0).find("twice") !=
        std::string::npos);
  CHECK(check_sum(ref.sum, ref.abs_sum, float(ref.sum), 1000, nullptr).status == Status::Pass);
}

TEST_CASE("guard verdict turns a pass into a failure that names the buffer") {
  CheckResult r;
  r.status = Status::Pass;
  add_canary_verdict(r, "d_out", 100, 3, 101);
  CHECK(r.status == Status::Fail);
  CHECK(r.message.find("wrote past the end of d_out") != std::string::npos);
  CHECK(r.message.find("[101]") != std::string::npos);
}

TEST_CASE("with_commas groups thousands") {
  CHECK(with_commas(0) == "0");
  CHECK(with_commas(999) == "999");
  CHECK(with_commas(1000) == "1,000");
  CHECK(with_commas(1073741824) == "1,073,741,824");
}

TEST_CASE("a matrix thinner than one tile has no 'last partial tile' to blame") {
  OutputLayout l;
  l.rows = 5;
  l.cols = 40;
  l.tile = 32;
  std::vector<bool> wrong(200), unwritten(200);
  wrong[3] = wrong[77] = true;
  CHECK(describe_pattern(wrong, unwritten, l).find("partial tile") == std::string::npos);
}

TEST_CASE("count_of says one place and two places") {
  CHECK(count_of(1, "place", "places") == "1 place");
  CHECK(count_of(1024, "place", "places") == "1,024 places");
}

static wire::Launch launch(uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by) {
  wire::Launch l;
  l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = 1;
  l.block[0] = bx, l.block[1] = by, l.block[2] = 1;
  return l;
}

TEST_CASE("a short grid is measured in the launch's own tiles, with the division that rounded down") {
  // CS179's transpose: 64 x 64 tiles moved by 64 x 16 blocks, the grid rounded down.
  CheckResult r;
  r.status = Status::Fail;
  r.message = "2,304 of 6,400 elements wrong: every element from (row 64, col 0) on was never written";
  CHECK(add_grid_coverage_note(r, {launch(1, 1, 64, 16)}, GridMatrix{64, 100, 32}));
  CHECK(r.message == "2,304 of 6,400 elements wrong: your grid is too small (100 / 64 rounds down to 1 across)");
  CHECK(r.notes.front().find("in tiles of 64 x 64 needs 2 x 1") != std::string::npos);
  CHECK(r.notes.front().find("(cols + 63) / 64") != std::string::npos);
  // A grid that covers the matrix in its own tiles is no story, whatever the lab's tile.
  CheckResult ok;
  ok.status = Status::Fail;
  CHECK_FALSE(add_grid_coverage_note(ok, {launch(2, 1, 64, 16)}, GridMatrix{64, 100, 32}));
  // A grid of 0 blocks, refused: its sentence names the matrix and the rounding.
  CHECK(refused_grid_words({launch(0, 0, 64, 16)}, GridMatrix{1, 1, 32}) ==
        "for a 1 x 1 matrix your grid has 0 x 0 blocks of 64 x 16 threads (1 / 64 rounds down to 0 across, and 1 / 64 "
        "rounds down to 0 down): a grid needs at least one block each way. Round up: (cols + 63) / 64 blocks across, "
        "(rows + 63) / 64 down");
  CHECK(refused_grid_words({launch(1, 1, 64, 16)}, GridMatrix{1, 1, 32}).empty());
  // A 1-D block says nothing about tiles: the lab's own.
  CHECK(launch_tile(launch(3, 3, 256, 1), 100, 100, 32) == 32);
}
