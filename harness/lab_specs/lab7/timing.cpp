// Lab 7's timing: the student's grid-stride atomic sum (timed in the kernel runner, every
// repetition on inputs of its own and checked), one CPU core, the harness's naive kernel and
// CUB's DeviceReduce::Sum, against the copy bandwidth.
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/types/suite.h"
#include "checker/gpu/sum_baselines.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/timing/timed_call.h"
#include "cudalab/lab7.h"
#include "wire/random.h"

namespace cudalab {

wire::Fill lab7_fill(uint64_t seed, int signs);  // lab_specs/lab7/checks.cpp
CheckResult check_atomic_sum(size_t n, const wire::Fill& fill, float got, const std::vector<wire::Launch>& launches);

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MiB: five times the H100's L2
  SumTimingReport t(req.runner, n);

  auto fill_of = [&](int rep) { return lab7_fill(timed_call_seed(req.seed, rep), 0); };
  const StudentTiming st = time_lab_calls(
      req.runner,
      [&](int rep) {
        LabCall call(lab7_call::kCall);
        call.random_input(lab7_call::kIn, n, fill_of(rep));
        call.output(lab7_call::kSum, 1);
        call.scalar(lab7_call::kN, int64_t(n));
        return call;
      },
      [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
        const CheckResult r = check_atomic_sum(n, fill_of(rep), res.floats(1)[0], res.launches);
        return r.status == Status::Pass ? "" : r.message;
      },
      t.student_config());
  if (!t.add_student(st, "your grid-stride atomic sum")) return t.report;

  // The comparisons every sum lab makes: one CPU core, the naive kernel, CUB.
  t.add_comparisons(7, req, fill_of, [&] { return make_input<float>(n, lab7_fill(req.seed, 0)); });
  return t.report;
}

}  // namespace cudalab
