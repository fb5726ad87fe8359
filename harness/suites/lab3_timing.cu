// Lab 3's timing: the student's multi-level sum, one CPU core, the harness's naive kernel and
// CUB, against the copy bandwidth. The reference must reach half of that bandwidth here.
#include <cuda_runtime.h>

#include "cuda_errors.h"
#include "cudalab/lab3.h"
#include "guarded_buffer.h"
#include "suite.h"
#include "sum_baselines.h"
#include "sum_reference.h"
#include "timer.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MB: five times the H100's L2
  const std::vector<float> input = sum_input(n, req.seed);

  GuardedBuffer data("the timing input", n), scratch("d_scratch", lab3::scratch_elements(n)), total("d_sum", 1);
  data.upload(input);

  SumTimingReport t(n);

  // The input is read-only here, so no repeat needs a fresh copy.
  Timing student = time_gpu([&] { lab3::multilevel_sum(data.get(), scratch.get(), total.get(), n); });
  if (!t.check_total(input, total.download()[0])) return t.report;
  t.add("your multi-level sum, all levels", "student", student.median_ms);
  t.add_comparisons(input, data.get());
  return t.report;
}

}  // namespace cudalab
