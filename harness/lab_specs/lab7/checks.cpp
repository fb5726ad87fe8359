// Lab 7's checks: the grid-stride sum with one atomicAdd per block.
//
// As lab 3's, with sizes around the warp (32), the block (256, 1024 threads), one whole pass
// of a full grid (an H100 or an A100 at 2,048 threads per multiprocessor, in floats and in
// float4s) and 2^30; one input all negative and one of mixed signs. d_sum is poisoned (NaN):
// setting it to 0 is the lab's job. The last element of every input is scaled by 2^24, so an
// element left out shows through the tolerance at any size.
//
// The tolerance: float atomics add the blocks' totals in any order, so the bound is that of
// the longest chain of roundings the launch can make: the elements one thread adds in a row
// (n / threads of the largest launch), the block's tree (log2 of its threads), one addition
// per block into d_sum, and tolerance.h's serial allowance; times the sum of |x|.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/guard_verdicts.h"
#include "checker/calls/runner_words.h"
#include "checker/types/suite.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/judging/tolerance.h"
#include "cudalab/lab7.h"

namespace cudalab {
namespace {

constexpr size_t kLargeAbove = size_t(1) << 23;

enum class Signs { Positive, Negative, Mixed };

struct Spec {
  const char* id;
  const char* title;
  size_t n;
  Signs signs;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = {
      {"one_element", "n = 1: one thread has work, the other blocks add 0", 1, Signs::Positive},
      {"three_elements", "n = 3: less than one float4", 3, Signs::Positive},
      {"warp_minus_one", "n = 31: one element short of a warp", 31, Signs::Positive},
      {"warp_plus_one", "n = 33: one warp full, one element for the next", 33, Signs::Positive},
      {"block_minus_one", "n = 255: one element short of a 256-thread block", 255, Signs::Positive},
      {"block_plus_one", "n = 257: one element past a 256-thread block", 257, Signs::Positive},
      {"b1024_plus_one", "n = 1,025: one element past 1,024 (a 1,024-thread block, or 256 x float4)", 1025,
       Signs::Positive},
      {"all_negative", "n = 100,003 values in [-1.5, -0.5)", 100003, Signs::Negative},
      {"mixed_signs", "n = 100,003 values in [-1, 1): they cancel, the tolerance does not", 100003, Signs::Mixed},
      {"h100_grid_minus_one", "n = 132 x 2,048 - 1: one short of one pass of an H100's full grid", 270335,
       Signs::Positive},
      {"h100_grid_plus_one", "n = 132 x 2,048 + 1: one element into the grid-stride loop's second pass", 270337,
       Signs::Positive},
      {"a100_grid_plus_one", "n = 108 x 2,048 + 1: the same on an A100", 221185, Signs::Positive},
      {"h100_grid_float4_plus_one", "n = 4 x 132 x 2,048 + 1: one pass of float4s, plus one", 1081345, Signs::Positive},
      {"odd_million", "n = 1,000,003: a prime, not a multiple of 4", 1000003, Signs::Positive},
      {"tail_of_two", "n = 12,345,678: two elements past the last float4", 12345678, Signs::Positive},
      {"large_mixed", "n = 2^27 + 1 of mixed signs", (size_t(1) << 27) + 1, Signs::Mixed},
      {"b1024_cubed", "n = 2^30 (4 GiB)", size_t(1) << 30, Signs::Positive},
  };
  return s;
}

std::vector<CheckCase> cases() {
  std::vector<CheckCase> c;
  for (const Spec& s : specs()) c.push_back(CheckCase{s.id, s.title, Shape{{s.n}}, s.n > kLargeAbove});
  return c;
}

}  // namespace

// The input of a lab 7 check or timed repetition: uniform values of the given signs, the last
// one scaled by 2^24.
wire::Fill lab7_fill(uint64_t seed, int signs) {
  wire::Fill f = wire::uniform_fill(seed, /*stream=*/7, 0.5f, 1.5f);
  if (signs == int(Signs::Negative)) f.lo = -1.5f, f.hi = -0.5f;
  if (signs == int(Signs::Mixed)) f.lo = -1.0f, f.hi = 1.0f;
  f.last_scale = 16777216.0f;
  return f;
}

// The rounding bound for any order of additions the launches can make (see the top of the file).
double atomic_sum_tolerance(size_t n, double abs_sum, const std::vector<wire::Launch>& launches) {
  double threads = 0, blocks = 1, block_threads = 1;
  for (const wire::Launch& l : launches) {
    const double b = double(l.grid[0]) * l.grid[1] * l.grid[2], t = double(l.block[0]) * l.block[1] * l.block[2];
    if (b * t > threads) threads = b * t, blocks = b, block_threads = t;
  }
  if (threads == 0) return sum_tolerance(n, abs_sum);
  const double depth = std::ceil(double(n) / threads) + std::ceil(std::log2(block_threads)) + blocks + kSerialAllowance;
  return std::max(sum_tolerance(n, abs_sum), rounding_gamma(depth + 1) * abs_sum);
}

// Lab 7's verdict on one sum (also the timing's check of every repetition).
CheckResult check_atomic_sum(size_t n, const wire::Fill& fill, float got, const std::vector<wire::Launch>& launches) {
  const SumReference exact = sum_reference(n, fill);
  const double tol = atomic_sum_tolerance(n, exact.abs_sum, launches);
  CheckResult r;
  if (within(exact.sum, got, tol)) {
    r.status = Status::Pass;
    r.message = "the sum is right (within the rounding of any order of your launch's additions)";
    r.max_error = std::fabs(double(got) - exact.sum);
    r.tolerance = tol;
    return r;
  }
  // check_sum words the failure (never written, off by one block, ...); its own tolerance is
  // the smaller one, so its verdict is a failure too. The prefix sums that explain a wrong
  // sum take n doubles: only up to 2^27.
  const std::vector<double> prefix =
      n <= (size_t(1) << 27) ? prefix_sums(make_input<float>(n, fill)) : std::vector<double>{};
  r = check_sum(exact.sum, exact.abs_sum, got, n, prefix.empty() ? nullptr : &prefix);
  r.status = Status::Fail;
  r.tolerance = tol;
  if (std::isnan(got))  // a GPU's atomicAdd may keep the poison's bits: say it either way
    r.notes.push_back(
        "d_sum arrives holding NaN and atomicAdd adds into whatever is there: set it to 0 before the kernel "
        "(TODO 4). A NaN also comes from adding an element past the end of the input");
  return r;
}

namespace {

// The lab's sum of the check's input, with d_sum starting at `start` instead of the poison.
float sum_starting_at(CallContext& calls, size_t n, const wire::Fill& fill, float start) {
  LabCall call(lab7_call::kCall);
  call.random_input(lab7_call::kIn, n, fill);
  const size_t total = call.output_from(lab7_call::kSum, &start, 1);
  call.scalar(lab7_call::kN, int64_t(n));
  return call.run(calls).floats(total)[0];
}

// Whether the lab file's code (its comments left out: a "TODO: atomicAdd" is no call) calls an
// atomic: atomicAdd, atomicCAS, ... (an uppercase letter after "atomic"; lab7::atomic_sum is none),
// or atomic_ref / atomic<.
bool lab_code_has_atomic(const LabSource& source) {
  const std::string code = code_without_comments(source.text);
  for (size_t at = code.find("atomic"); at != std::string::npos; at = code.find("atomic", at + 1)) {
    const char next = at + 6 < code.size() ? code[at + 6] : ' ';
    if (std::isupper(static_cast<unsigned char>(next)) || next == '<' || code.compare(at + 6, 4, "_ref") == 0)
      return true;
  }
  return false;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// A NaN sum has two stories: nothing was written (d_sum still holds the poison), or the kernel
// added onto the NaN d_sum arrives with (x86 keeps the poison's bits through an addition, so the
// two look alike). Run again with d_sum starting at 1,000 and read which it was (issue 18). A
// file with no atomicAdd at all is told so: blocks adding with += lose each other's additions.
void explain_nan_sum(CallContext& calls, CheckResult& r, size_t n, const wire::Fill& fill, double expected,
                     double tol) {
  constexpr float kStart = 1000.0f;
  const float again = sum_starting_at(calls, n, fill, kStart);
  const double added = double(again) - kStart;
  const std::string no_atomic =
      lab_code_has_atomic(calls.runner.source()) || calls.runner.source().text.empty()
          ? ""
          : ", and your file has no atomicAdd: blocks that add into d_sum with += at the same time "
            "lose each other's additions";
  if (again == kStart) {
    r.message =
        "the sum was never written: d_sum still holds what it started with (the harness's NaN, and 1,000 when "
        "the checker ran it again starting from 1,000)";
  } else if (within(expected, added, tol + 1e-6 * kStart) || (std::isfinite(again) && !no_atomic.empty())) {
    r.cause = Cause::WrongValues;  // written after all: onto the poison, which looked unwritten
    r.message = "d_sum was never set to 0: your code adds onto the NaN it arrives with" + no_atomic;
    r.notes.erase(std::remove_if(r.notes.begin(), r.notes.end(),
                                 [](const std::string& s) { return s.find("d_sum arrives holding NaN") == 0; }),
                  r.notes.end());
    r.notes.insert(r.notes.begin(), "run again with d_sum starting at 1,000, your code gave " + num(again) +
                                        " (1,000 + " + num(added) + "; the sum is " + num(expected) +
                                        "): set d_sum to 0 first (cudaMemset(d_sum, 0, sizeof(float))), then add "
                                        "each block's total with atomicAdd(d_sum, total)");
    for (Mismatch& m : r.mismatches) m.got = std::nan("");  // written after all: not the poison's "never written"
  }
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  const size_t n = c.shape.dims[0];
  Signs signs = Signs::Positive;
  for (const Spec& s : specs())
    if (c.id == s.id) signs = s.signs;
  const wire::Fill fill = lab7_fill(seed, int(signs));

  LabCall call(lab7_call::kCall);
  call.random_input(lab7_call::kIn, n, fill);
  const size_t total = call.output(lab7_call::kSum, 1);  // poisoned: NaN
  call.scalar(lab7_call::kN, int64_t(n));
  const LabCallResult res = call.run(calls);

  const float got = res.floats(total)[0];
  CheckResult r = check_atomic_sum(n, fill, got, res.launches);
  if (r.status == Status::Fail && std::isnan(got))
    explain_nan_sum(calls, r, n, fill, sum_reference(n, fill).sum, r.tolerance);
  add_guards_and_notes(r, call, res, {{total}, {lab7_call::kIn}});
  return r;
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite{
      7,
      "the grid-stride sum with one atomic per block",
      "N",
      1,
      cases(),
      run,
      [](const Shape& s) -> std::string {
        return s.dims[0] == 0 || s.dims[0] > (size_t(1) << 31) ? "lab 7 sums 1 to 2^31 elements (its contract's limit)"
                                                               : "";
      },
  };
  return suite;
}

}  // namespace cudalab
