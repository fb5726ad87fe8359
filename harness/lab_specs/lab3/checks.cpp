// Lab 3's checks: the multi-level sum at sizes on both sides of every level boundary.
//
// Same pattern as lab 1: a table of cases, and one function that runs a case. A student's
// block may cover any number of elements, so the table covers the common choices: for
// B = 256, 512, 1024, 2048 (one, two, four or eight elements per thread of 256 or 1024
// threads) and 8192 (the reference: 256 threads x 8 float4s), sizes B - 1 and B + 1 (one
// block more), B^2 - 1 and B^2 + 1 (one level more), B^3 + 1 (a fourth level) for B = 256 and
// 512, and B^3 = 2^30 for 1024. Sizes not a multiple of 4 test the tail of float4 loads.
// Cases above 2^28 elements are `large`: the CPU backend skips them (2^30: 4 GiB of input and
// about 4 s of emulated kernels on two cores), a GPU runs them all. Up to 2^27 + 1 the CPU
// backend sums in about half a second (harness/runner/emulator/README.md), so it checks every level
// boundary but the last.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/guard_verdicts.h"
#include "checker/types/suite.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "cudalab/lab3.h"

namespace cudalab {
namespace {

constexpr size_t kLargeAbove = size_t(1) << 28;

CheckCase sized(std::string id, std::string title, size_t n) {
  return CheckCase{std::move(id), std::move(title), Shape{{n}}, n > kLargeAbove};
}

std::vector<CheckCase> cases() {
  std::vector<CheckCase> c = {
      sized("one_element", "n = 1: a single block with one element, one level", 1),
      sized("two_elements", "n = 2: the smallest tree", 2),
      sized("three_elements", "n = 3: less than one float4", 3),
      sized("five_elements", "n = 5: one float4 and a tail of one", 5),
      sized("warp_plus_one", "n = 33: one warp full, one element for the next", 33),
  };
  // The boundaries of one block size B: one block more (B +- 1), one level more (B^2 +- 1).
  for (size_t b : {256, 512, 1024, 2048, 8192}) {
    const std::string p = "b" + std::to_string(b), B = "B = " + std::to_string(b);
    c.push_back(sized(p + "_minus_one", "B - 1, " + B + ": one block, one element short", b - 1));
    c.push_back(sized(p + "_plus_one", "B + 1, " + B + ": a second block with one element", b + 1));
    c.push_back(sized(p + "_squared_minus_one", "B^2 - 1, " + B + ": two levels, one element short", b * b - 1));
    c.push_back(sized(p + "_squared_plus_one", "B^2 + 1, " + B + ": one element needs a third level", b * b + 1));
  }
  c.push_back(sized("b1024_exact", "n = 1024: exactly one full block of 1024", 1024));
  c.push_back(sized("b1024_squared", "n = 1024^2: two full levels of 1024 (lab 2's limit)", 1 << 20));
  c.push_back(sized("odd_million", "n = 1,000,003: a prime, not a multiple of 4", 1000003));
  c.push_back(sized("tail_of_two", "n = 12,345,678: two elements past the last float4", 12345678));
  c.push_back(
      sized("b256_cubed_plus_one", "B^3 + 1, B = 256: one element needs a fourth level", (size_t(1) << 24) + 1));
  c.push_back(
      sized("b512_cubed_plus_one", "B^3 + 1, B = 512: one element needs a fourth level", (size_t(1) << 27) + 1));
  c.push_back(sized("b1024_cubed", "n = 2^30 = 1024^3: three full levels of 1024 (4 GiB)", size_t(1) << 30));
  // Smallest first: the quick checks report before the large ones take their time.
  std::stable_sort(c.begin(), c.end(),
                   [](const CheckCase& x, const CheckCase& y) { return x.shape.dims[0] < y.shape.dims[0]; });
  return c;
}

// Explanations specific to a multi-level sum, on top of check_sum's general ones, told from
// the student's own launches (the runner's launch record), not from the notebook's numbers.
void add_level_hints(CheckResult& r, float got, size_t n, const std::vector<wire::Launch>& launches, uint64_t total) {
  if (r.status != Status::Fail || launches.empty()) return;
  const uint64_t first_blocks =
      uint64_t(launches.front().grid[0]) * launches.front().grid[1] * launches.front().grid[2];
  const uint64_t last_blocks = uint64_t(launches.back().grid[0]) * launches.back().grid[1] * launches.back().grid[2];
  // Elements per block as the first launch shows it; the levels that block size needs.
  // The block size B with ceil(n / B) = blocks is ambiguous (n = 1,025 over 2 blocks fits any B
  // from 513 to 1,024): the largest power of two that fits is what students write.
  uint64_t per_block = first_blocks ? (n + first_blocks - 1) / first_blocks : 0;
  for (uint64_t b = uint64_t(1) << 40; b >= 1 && first_blocks; b /= 2)
    if ((n + b - 1) / b == first_blocks) {
      per_block = b;
      break;
    }
  int levels = 1;
  if (per_block > 1)
    for (uint64_t m = first_blocks; m > 1; m = (m + per_block - 1) / per_block) ++levels;
  const std::string yours = "your code made " + std::to_string(total) + (total == 1 ? " launch" : " launches") +
                            " for n = " + with_commas(n) + "; the first had " + with_commas(first_blocks) +
                            (first_blocks == 1 ? " block" : " blocks") +
                            (per_block > 1 ? " (" + with_commas(per_block) + " elements per block)" : "");
  if (is_poison(got)) {
    if (last_blocks > 1)
      r.notes.push_back(yours + ", and the last had " + with_commas(last_blocks) +
                        " blocks: it wrote partial sums, not the total. d_sum is written by a level of a single "
                        "block" +
                        (per_block > 1 ? "; with " + with_commas(per_block) + " elements per block, n = " +
                                             with_commas(n) + " takes " + std::to_string(levels) + " levels"
                                       : "") +
                        ". TODO 4 is the loop that launches levels until one has a single block");
    else
      r.notes.push_back(yours +
                        ", and the last ran as a single block, yet d_sum[0] was never written: does that "
                        "level write its sum to d_sum, not to d_scratch?");
  } else if (std::isnan(got)) {
    r.notes.push_back(yours +
                      ". A level read a value nobody wrote: d_scratch starts out as NaN, and a level's n is "
                      "the number of blocks of the level before it");
  }
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  const size_t n = c.shape.dims[0];
  const size_t scratch_n = lab3::scratch_elements(n);
  // The runner makes the same input from the seed; "garbage on entry" in d_scratch is made
  // visible as poison: reading it before writing gives NaN.
  LabCall call(lab3_call::kCall);
  call.random_input(lab3_call::kIn, n, sum_fill(seed));
  const size_t scratch = call.output(lab3_call::kScratch, scratch_n, /*return_data=*/false);
  const size_t total = call.output(lab3_call::kSum, 1);
  call.scalar(lab3_call::kN, int64_t(n));
  const LabCallResult res = call.run(calls);

  const SumReference exact = sum_reference(n, sum_fill(seed));
  const float got = res.floats(total)[0];
  CheckResult r = check_sum(exact.sum, exact.abs_sum, got, n, nullptr);
  if (r.status == Status::Fail) {
    // Only a wrong sum needs the prefix sums (n doubles) that explain it; above 2^27 elements
    // prefix_sums declines, and the explanation is left out.
    const std::vector<double> prefix = n <= (size_t(1) << 27) ? prefix_sums(sum_input(n, seed)) : std::vector<double>{};
    r = check_sum(exact.sum, exact.abs_sum, got, n, &prefix);
  }
  add_level_hints(r, got, n, res.launches, res.launches_total);

  add_guards_and_notes(r, call, res,
                       {{total},
                        {scratch, "d_scratch (scratch_elements(n) = " + with_commas(scratch_n) + " floats)"},
                        {lab3_call::kIn}});
  return r;
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite{
      3,
      "the multi-level sum",
      "N",
      1,
      cases(),
      run,
      [](const Shape& s) -> std::string {
        return s.dims[0] > (size_t(1) << 31) ? "lab 3 sums at most 2^31 elements (its contract's limit)" : "";
      },
  };
  return suite;
}

}  // namespace cudalab
