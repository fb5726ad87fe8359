// Lab 1's checks: the per-block sums of the naive interleaved kernel.
//
// The pattern every suite follows: a table of cases (data), and one function that runs a
// case: draw inputs from the seed, fill guarded device buffers, call the lab's host
// function through a LabCall (lab_call.h), compare with a CPU reference, add lab-specific hints.
#include <cmath>
#include <string>

#include "cudalab/lab1.h"
#include "diagnose.h"
#include "lab_call.h"
#include "suite.h"
#include "sum_reference.h"
#include "tolerance.h"

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

CheckResult run(const CheckCase& c, uint64_t seed) {
  const size_t n = c.shape.dims[0];
  const size_t blocks = lab1::num_blocks(n);
  const std::vector<float> input = sum_input(n, seed);

  LabCall call("lab1::block_sums", 1);
  const size_t data = call.random_input("the input array", wire::ElemType::F32, n, sum_fill(seed));
  const size_t sums = call.output("d_block_sums", wire::ElemType::F32, blocks);
  call.scalar(int64_t(n));
  const LabCallResult res = call.run();

  const BlockSums ref = block_sums_reference(input, B);
  const std::vector<float> got = res.floats(sums);
  CheckResult r = compare_outputs(
      ref.sums, got, [&](size_t b) { return sum_tolerance(ref.lengths[b], ref.abs_sums[b]); },
      block_sum_layout());

  const bool partial = n % B != 0;
  if (r.status == Status::Fail && partial && r.mismatches.size() == 1 && r.mismatches[0].index == blocks - 1 &&
      !is_poison(float(r.mismatches[0].got)))
    r.notes.push_back("the last block is partial (" + std::to_string(n % B) +
                      (n % B == 1 ? " element)" : " elements)") + ": its threads must not add partners at or past n");
  if (r.status == Status::Fail && !r.mismatches.empty() && std::isnan(r.mismatches[0].got) &&
      !is_poison(float(r.mismatches[0].got)))
    r.notes.push_back("NaN means an element past the end of the input was added: check i + s < n");

  add_guard_verdict(r, call, res, sums, "");
  add_guard_verdict(r, call, res, data, "");
  for (const auto& note : res.notes) r.notes.push_back(note);

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
