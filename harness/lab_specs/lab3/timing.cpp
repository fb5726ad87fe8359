// Lab 3's timing: the student's multi-level sum, one CPU core, the harness's naive kernel and
// CUB (every GPU row timed the same way, each in a kernel runner, every call on inputs of its own
// and checked: baseline_timing.h), against the copy bandwidth. The reference must reach half of
// that bandwidth here.
#include <string>

#include "call.h"
#include "checker/types/suite.h"
#include "checker/gpu/sum_baselines.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/timing/timed_call.h"
#include "cudalab/lab3.h"
#include "wire/random.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MB: five times the H100's L2
  SumTimingReport t(req.runner, n);

  auto fill_of = [&](int rep) { return sum_fill(timed_call_seed(req.seed, rep)); };
  size_t total = 0;
  const StudentTiming student = time_lab_calls(
      req.runner,
      [&](int rep) {
        LabCall call(lab3_call::kCall);
        call.random_input(lab3_call::kIn, n, fill_of(rep));
        call.output(lab3_call::kScratch, lab3::scratch_elements(n), false);
        total = call.output(lab3_call::kSum, 1);
        call.scalar(lab3_call::kN, int64_t(n));
        return call;
      },
      [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
        const SumReference exact = sum_reference(n, fill_of(rep));
        CheckResult r = check_sum(exact.sum, exact.abs_sum, res.floats(total)[0], n, nullptr);
        return r.status == Status::Pass ? "" : r.message;
      },
      t.student_config());
  if (!t.add_student(student, "your multi-level sum, all levels")) return t.report;

  t.add_comparisons(3, req, fill_of, [&] { return sum_input(n, req.seed); });
  return t.report;
}

}  // namespace cudalab
