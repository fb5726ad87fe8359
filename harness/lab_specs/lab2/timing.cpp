// Lab 2's timing: the student's two launches (timed in the kernel runner, every repetition on
// inputs of its own and checked), one CPU core, the harness's naive kernel and CUB, against the
// copy bandwidth.
//
// One call of lab2::shared_sum sums at most 1024^2 floats (4 MiB), which fits in the L2 cache
// several times over. To time DRAM rather than a launch, the timed work is 64 calls over
// consecutive slices of one 256 MiB array (five times the H100's 50 MB L2), each summing the
// most the lab allows (harness/lab_specs/lab2/runner_entry.cpp makes the calls); the other rows sum the same
// 256 MiB in one go. --size N sets the slice (at most 1024^2); the calls then cover
// min(64, 2^26 / N) slices, at least one.
#include <algorithm>
#include <string>

#include "call.h"
#include "checker/types/suite.h"
#include "checker/gpu/sum_baselines.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/timing/timed_call.h"
#include "cudalab/lab2.h"
#include "wire/random.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t slice = req.shape ? req.shape->dims[0] : lab2::kMaxElements;  // the checks rejected > kMax
  const size_t calls = std::clamp<size_t>((size_t(1) << 26) / slice, 1, 64);
  const size_t n = calls * slice;
  SumTimingReport t(req.runner, n, ", your code as " + with_commas(calls) + " calls of " + with_commas(slice));

  auto fill_of = [&](int rep) { return sum_fill(timed_call_seed(req.seed, rep)); };
  size_t total = 0;
  const StudentTiming student = time_lab_calls(
      req.runner,
      [&](int rep) {
        LabCall call(lab2_call::kCall);
        call.random_input(lab2_call::kIn, n, fill_of(rep));
        call.output(lab2_call::kBlockSums, lab2::num_blocks(slice), false);
        total = call.output(lab2_call::kSum, 1);
        call.scalar(lab2_call::kN, int64_t(slice));
        call.scalar(lab2_call::kCalls, int64_t(calls));
        return call;
      },
      // Each call writes the same d_sum: after the last it holds the last slice's sum.
      [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
        const SumReference exact = range_sum_reference(n, fill_of(rep), n - slice, n);
        CheckResult r = check_sum(exact.sum, exact.abs_sum, res.floats(total)[0], slice, nullptr);
        return r.status == Status::Pass ? "" : "the last call's d_sum: " + r.message;
      },
      t.student_config());
  if (!t.add_student(student, "your two launches, " + with_commas(calls) + " calls",
                     calls > 1 ? "each call sums at most 1024^2 elements (lab 3 lifts this)" : ""))
    return t.report;

  t.add_comparisons(2, req, fill_of, [&] { return sum_input(n, req.seed); });
  return t.report;
}

}  // namespace cudalab
