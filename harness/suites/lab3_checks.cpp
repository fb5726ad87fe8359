// Lab 3's checks: the multi-level sum at sizes on both sides of every level boundary.
//
// Same pattern as lab 1: a table of cases, and one function that runs a case. A student's
// block may cover any number of elements, so the table covers the common choices: for
// B = 256, 512, 1024, 2048 (one, two, four or eight elements per thread of 256 or 1024
// threads) and 8192 (the reference: 256 threads x 8 float4s), sizes B - 1 and B + 1 (one
// block more), B^2 - 1 and B^2 + 1 (one level more), B^3 + 1 (a fourth level) for B = 256 and
// 512, and B^3 = 2^30 for 1024. Sizes not a multiple of 4 test the tail of float4 loads.
// Cases above 2^23 elements are `large`: the CPU backend skips them, a GPU runs them all.
#include <algorithm>
#include <cmath>
#include <string>

#include "cuda_errors.h"
#include "cudalab/lab3.h"
#include "diagnose.h"
#include "guarded_buffer.h"
#include "suite.h"
#include "sum_reference.h"

namespace cudalab {
namespace {

constexpr size_t kLargeAbove = size_t(1) << 23;

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

// Explanations specific to a multi-level sum, on top of check_sum's general ones.
void add_level_hints(CheckResult& r, float got, size_t n) {
  if (r.status != Status::Fail) return;
  if (is_poison(got)) {
    int levels = 1;
    for (size_t m = n; m > 1024; m = (m + 1023) / 1024) ++levels;
    r.notes.push_back(
        "d_sum is written by the level that runs as a single block; with the notebook's 1024 "
        "elements per block, n = " +
        with_commas(n) + " takes " + std::to_string(levels) + (levels == 1 ? " level" : " levels") +
        ". Is every TODO done (TODO 4 is the loop that runs until a level has one block)?");
  } else if (std::isnan(got)) {
    r.notes.push_back(
        "a level read a value nobody wrote: d_scratch starts out as NaN, and a level's n is the "
        "number of blocks of the level before it");
  }
}

CheckResult run(const CheckCase& c, uint64_t seed) {
  const size_t n = c.shape.dims[0];
  const size_t scratch_n = lab3::scratch_elements(n);
  const std::vector<float> input = sum_input(n, seed);

  GuardedBuffer in("the input array", n), scratch("d_scratch", scratch_n), total("d_sum", 1);
  in.upload(input);
  scratch.poison();  // "garbage on entry", made visible: reading it before writing gives NaN
  total.poison();
  call_lab_function("lab3::multilevel_sum", [&] { lab3::multilevel_sum(in.get(), scratch.get(), total.get(), n); });

  const SumReference exact = sum_reference(input);
  const float got = total.download()[0];
  CheckResult r = check_sum(exact.sum, exact.abs_sum, got, n, nullptr);
  if (r.status == Status::Fail) {
    // Only a wrong sum needs the prefix sums (n doubles) that explain it; above 2^27 elements
    // prefix_sums declines, and the explanation is left out.
    const std::vector<double> prefix = prefix_sums(input);
    r = check_sum(exact.sum, exact.abs_sum, got, n, &prefix);
  }
  add_level_hints(r, got, n);

  auto total_guards = total.check_guards();
  add_canary_verdict(r, "d_sum", 1, total_guards.overwritten, total_guards.first);
  auto scratch_guards = scratch.check_guards();
  add_canary_verdict(r, "d_scratch (scratch_elements(n) = " + with_commas(scratch_n) + " floats)", scratch_n,
                     scratch_guards.overwritten, scratch_guards.first);
  auto in_guards = in.check_guards();
  add_canary_verdict(r, "the input array", n, in_guards.overwritten, in_guards.first);
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
