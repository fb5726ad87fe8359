// Lab 1's checks: the per-block sums of the naive interleaved kernel.
//
// The pattern every suite follows: a table of cases (data), and one function that runs a
// case: draw inputs from the seed, fill guarded device buffers, call the lab's host
// function through a LabCall (lab_call.h), compare with a CPU reference, add lab-specific hints.
#include <cmath>
#include <cstring>
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/guard_verdicts.h"
#include "checker/types/suite.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/judging/tolerance.h"
#include "cudalab/lab1.h"

namespace cudalab {
namespace {

constexpr size_t B = lab1::kBlockSize;

std::vector<CheckCase> cases() {
  return {
      {"one_element", "n = 1: a single block with one element", Shape{{1}}},
      {"two_elements", "n = 2: the smallest tree", Shape{{2}}},
      {"one_partial_block", "n = 1000: one block, partly filled", Shape{{1000}}},
      {"one_full_block", "n = blockDim: exactly one full block", Shape{{B}}},
      {"partial_last_block", "n = blockDim + 1: a second block with a single element", Shape{{B + 1}}},
      {"two_full_blocks", "n = 2 blockDim: two full blocks", Shape{{2 * B}}},
      {"odd_size", "n = 3001: an odd size, last block partial", Shape{{3001}}},
      {"million", "n = 2^20: 1024 full blocks", Shape{{size_t(1) << 20}}},
      {"million_and_change", "n = 2^20 + 17: many blocks, last one partial", Shape{{(size_t(1) << 20) + 17}}},
      {"many_blocks", "n = 12,345,678: about 12,000 blocks", Shape{{12345678}}},
  };
}

// Which block, and which thread writes the block's sum.
OutputLayout block_sum_layout() {
  OutputLayout l;
  l.block_of = [](size_t b) { return "block " + std::to_string(b); };
  l.thread_of = [](size_t) { return std::string("written by thread 0"); };
  l.noun = "block sums";
  return l;
}

struct Sums {
  std::vector<float> got;
  LabCallResult res;
  LabCall call{lab1_call::kCall};
  size_t data = 0, sums = 0;
};

// One call of the lab on n elements drawn from the seed.
Sums call_lab(CallContext& calls, size_t n, uint64_t seed) {
  Sums s;
  s.data = s.call.random_input(lab1_call::kData, n, sum_fill(seed));
  s.sums = s.call.output(lab1_call::kBlockSums, lab1::num_blocks(n));
  s.call.scalar(lab1_call::kN, int64_t(n));
  s.res = s.call.run(calls);
  s.got = s.res.floats(s.sums);
  return s;
}

// Is the partial last block the cause? Only if the same tree gets it right once it is full:
// n rounded up to whole blocks, the same seed. A missing __syncthreads() also leaves a single
// block wrong, full or not (issue 18), and must not be sent to the bounds.
bool last_block_right_when_full(CallContext& calls, size_t n, uint64_t seed) {
  const size_t full = lab1::num_blocks(n) * B;
  const Sums s = call_lab(calls, full, seed);
  const BlockSums ref = block_sums_reference(sum_input(full, seed), B);
  const size_t last = ref.sums.size() - 1;
  return within(ref.sums[last], s.got[last], sum_tolerance(ref.lengths[last], ref.abs_sums[last]));
}

// The same call again, same input: block sums that change are a race (a GPU's warps, run in
// another order). The CPU backend's in-order runs repeat exactly; its schedule probe asks there.
bool changes_from_run_to_run(CallContext& calls, size_t n, uint64_t seed, const std::vector<float>& first) {
  const Sums again = call_lab(calls, n, seed);
  for (size_t b = 0; b < first.size(); ++b)
    if (std::memcmp(&first[b], &again.got[b], sizeof(float)) != 0) return true;
  return false;
}

constexpr const char* kMissingBarrier =
    "a __syncthreads() is missing between the tree's steps (or not every thread reaches it): every thread must "
    "finish step s before any thread reads its partner at step 2s";

// Why the block sums are wrong, tested before it is said: the partial last block, a race, or
// (with the bounds cleared) the steps' order.
void explain_wrong_sums(CallContext& calls, CheckResult& r, size_t n, uint64_t seed, const std::vector<float>& got) {
  const size_t blocks = got.size();
  const Mismatch& first = r.mismatches[0];
  if (std::isnan(first.got) && !is_poison(float(first.got))) {
    r.notes.push_back("NaN means an element past the end of the input was added: check i + s < n");
    return;
  }
  if (is_poison(float(first.got))) return;
  if (changes_from_run_to_run(calls, n, seed, got)) {
    r.message = "your block sums change from run to run on the same input: a race (" + r.message + ")";
    r.notes.insert(r.notes.begin(), std::string("the same input, run twice, gave different sums: ") + kMissingBarrier);
    return;
  }
  if (first.index < n / B) {  // a full block is wrong: no partner of it lies at or past n
    r.notes.push_back("block " + with_commas(first.index) +
                      " is full and its sum is wrong, so the bounds are not the "
                      "cause. With every partner inside the array, most often " +
                      kMissingBarrier +
                      "; if it is there, check each step: thread tid adds its partner i + s when tid % (2s) == 0");
    return;
  }
  const bool only_last = r.mismatches.size() == 1 && first.index == blocks - 1;
  if (n % B == 0 || !only_last) return;
  if (last_block_right_when_full(calls, n, seed)) {
    r.notes.push_back("the last block is partial (" + std::to_string(n % B) + (n % B == 1 ? " element" : " elements") +
                      ") and right once it is full: its threads must not add partners at or past n");
    return;
  }
  r.notes.push_back("not the partial block: the last block is wrong when it is full (n = " + with_commas(blocks * B) +
                    ") too. With every partner inside the array, most often " + kMissingBarrier);
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  const size_t n = c.shape.dims[0];
  const size_t blocks = lab1::num_blocks(n);
  const std::vector<float> input = sum_input(n, seed);
  Sums s = call_lab(calls, n, seed);

  const BlockSums ref = block_sums_reference(input, B);
  CheckResult r = compare_outputs(
      ref.sums, s.got, [&](size_t b) { return sum_tolerance(ref.lengths[b], ref.abs_sums[b]); }, block_sum_layout());
  if (r.status == Status::Fail) explain_wrong_sums(calls, r, n, seed, s.got);

  add_guards_and_notes(r, s.call, s.res, {{s.sums}, {s.data}});

  // The host adds these sums up; with every block sum right, so is their total.
  if (r.status == Status::Pass)
    r.message = blocks == 1 ? "the block sum is right" : "all " + with_commas(blocks) + " block sums right";
  return r;
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite{
      1,
      "the naive interleaved sum",
      "N",
      1,
      cases(),
      run,
      [](const Shape& s) -> std::string {
        return s.dims[0] > (size_t(1) << 30) ? "lab 1 sums at most 2^30 elements" : "";
      },
  };
  return suite;
}

}  // namespace cudalab
