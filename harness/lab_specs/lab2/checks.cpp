// Lab 2's checks: the block sums of the first launch and the total of the second.
//
// Same pattern as lab 1: a table of cases, and one function that runs a case. Both outputs
// are checked, the block sums first: when they are wrong the total cannot be right, and
// the block that is wrong says more than a wrong total does.
#include <cmath>
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/guard_verdicts.h"
#include "checker/types/suite.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/judging/tolerance.h"
#include "cudalab/lab2.h"

namespace cudalab {
namespace {

constexpr size_t B = lab2::kBlockSize;
constexpr size_t kMax = lab2::kMaxElements;

// Every size is within the lab's limit (n <= 1024^2), so none is `large`.
std::vector<CheckCase> cases() {
  return {
      {"one_element", "n = 1: one block holding a single element", Shape{{1}}},
      {"two_elements", "n = 2: the smallest tree", Shape{{2}}},
      {"three_elements", "n = 3: 1021 threads of the block have no element", Shape{{3}}},
      {"one_partial_block", "n = 1000: one block, partly filled", Shape{{1000}}},
      {"block_minus_one", "n = blockDim - 1: one thread short of a full block", Shape{{B - 1}}},
      {"one_full_block", "n = blockDim: exactly one full block", Shape{{B}}},
      {"block_plus_one", "n = blockDim + 1: a second block with a single element", Shape{{B + 1}}},
      {"non_power_of_two", "n = 100,000: 98 blocks, the last one partial", Shape{{100000}}},
      {"odd_size", "n = 524,289: 513 blocks, the last holding one element", Shape{{524289}}},
      {"last_block_single", "n = 1023 x 1024 + 1: 1024 blocks, the last holding one element", Shape{{(B - 1) * B + 1}}},
      {"limit_minus_one", "n = 1024^2 - 1: the limit, one element short", Shape{{kMax - 1}}},
      {"limit", "n = 1024^2: the most this design can sum (1024 blocks of 1024)", Shape{{kMax}}},
  };
}

// Block b's sum is written by thread 0 of block b in the first launch.
OutputLayout block_sum_layout() {
  OutputLayout l;
  l.block_of = [](size_t b) { return "block " + std::to_string(b); };
  l.thread_of = [](size_t) { return std::string("written by thread 0 (first launch)"); };
  l.noun = "block sums";
  return l;
}

// A lab-specific hint for wrong block sums, when the pattern points at one.
void add_block_sum_hints(CheckResult& r, size_t n, size_t blocks) {
  if (r.status != Status::Fail || r.mismatches.empty()) return;
  const Mismatch& first = r.mismatches[0];
  const bool partial = n % B != 0;
  const bool unwritten = is_poison(float(first.got));
  if (!unwritten && std::isnan(first.got))
    r.notes.push_back(
        "NaN means an element past the end of the input was read: threads with an index "
        ">= n must store 0 in their shared slot instead of reading in[i]");
  else if (!unwritten && partial && blocks > 1 && r.mismatches.size() == 1 && first.index == blocks - 1)
    r.notes.push_back("only the last block is wrong, and it is partial (" + std::to_string(n % B) +
                      (n % B == 1 ? " element)" : " elements)") +
                      ": its other threads must still store 0 in their shared slot and "
                      "reach every __syncthreads()");
}

// The tree halves offset from blockDim.x / 2: with a block size that is not a power of two, a
// step with an odd count leaves an element out. The launch record shows the student's sizes.
bool add_tree_width_note(CheckResult& r, const std::vector<wire::Launch>& launches) {
  for (const auto& l : launches) {
    const uint32_t threads = l.block[0] * l.block[1] * l.block[2];
    if (threads && (threads & (threads - 1)) == 0) continue;
    // This is the cause: the sum's own guesses (a prefix, a block left out) would compete with it.
    std::erase_if(r.notes, [](const std::string& n) {
      return n.rfind("your sum equals", 0) == 0 || n.rfind("off by exactly", 0) == 0;
    });
    r.notes.push_back("a launch of " + l.kernel + " has " + with_commas(threads) +
                      " threads per block, not a power of two: the tree halves offset from blockDim.x / 2, so a "
                      "step with an odd count leaves an element out. Launch lab2::kBlockSize threads (a power of "
                      "two) and let the threads past the count store 0");
    return true;
  }
  return false;
}

CheckResult run(CallContext& calls, const CheckCase& c, uint64_t seed) {
  const size_t n = c.shape.dims[0];
  const size_t blocks = lab2::num_blocks(n);
  const std::vector<float> input = sum_input(n, seed);

  LabCall call(lab2_call::kCall);
  const size_t in = call.random_input(lab2_call::kIn, n, sum_fill(seed));
  const size_t sums = call.output(lab2_call::kBlockSums, blocks);
  const size_t total = call.output(lab2_call::kSum, 1);
  call.scalar(lab2_call::kN, int64_t(n));
  const LabCallResult res = call.run(calls);

  // First the block sums (first launch).
  const BlockSums ref = block_sums_reference(input, B);
  CheckResult r = compare_outputs(
      ref.sums, res.floats(sums), [&](size_t b) { return sum_tolerance(ref.lengths[b], ref.abs_sums[b]); },
      block_sum_layout());
  add_block_sum_hints(r, n, blocks);

  // Then the total (second launch). Its tolerance is that of the whole sum: the two trees
  // together are no deeper than one tree over all n elements.
  const SumReference exact = sum_reference(input);
  const std::vector<double> prefix = prefix_sums(input);
  const float got = res.floats(total)[0];
  CheckResult t = check_sum(exact.sum, exact.abs_sum, got, n, &prefix);

  if (r.status == Status::Pass && t.status != Status::Pass) {
    // The first launch is right, so the fault is in the second one.
    t.message =
        (blocks == 1 ? std::string("the block sum is right") : "the " + with_commas(blocks) + " block sums are right") +
        ", but d_sum is not: " + t.message;
    if (is_poison(got))
      t.notes.push_back("the second launch (one block over d_block_sums) writes d_sum[0]: is it in place?");
    else if (std::isnan(got))
      t.notes.push_back("the second launch read past the block sums: it has " + std::to_string(B) + " threads for " +
                        with_commas(blocks) + " block sum" + (blocks == 1 ? "" : "s") +
                        ", so its n must be the number of blocks and its threads past that must store 0");
    else if (blocks > 1 && std::fabs(double(got) - ref.sums[0]) <= t.tolerance)
      t.notes.push_back("d_sum holds block 0's sum alone: the second launch must add all " + with_commas(blocks) +
                        " block sums (its n is the number of blocks)");
    r = t;
  } else if (r.status == Status::Pass) {
    r.message =
        (blocks == 1 ? std::string("the block sum is right") : "all " + with_commas(blocks) + " block sums right") +
        "; d_sum: " + t.message;
    r.max_error = t.max_error;
    r.tolerance = t.tolerance;
  } else if (t.status == Status::Pass) {
    r.notes.push_back("d_sum is right even so: only the block sums in d_block_sums are wrong");
  } else {
    r.notes.push_back(is_poison(got) ? std::string("d_sum was never written either")
                                     : "d_sum is wrong too: " + t.message);
  }

  if (r.status == Status::Fail) add_tree_width_note(r, res.launches);

  // Writing past the end of either output is a failure even when the values are right.
  add_guards_and_notes(r, call, res, {{sums}, {total}, {in}});
  return r;
}

}  // namespace

const LabSuite& lab_suite() {
  static const LabSuite suite{
      2,
      "the contiguous-offset shared-memory sum",
      "N",
      1,
      cases(),
      run,
      [](const Shape& s) -> std::string {
        if (s.dims[0] <= kMax) return "";
        return "lab 2 sums at most 1024 x 1024 = " + with_commas(kMax) +
               " elements: its second launch is one block of 1024 threads, one per block sum, so the "
               "first launch may have at most 1024 blocks. Lab 3 lifts this limit.";
      },
  };
  return suite;
}

}  // namespace cudalab
