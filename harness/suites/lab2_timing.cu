// Lab 2's timing: the student's two launches, one CPU core, the harness's naive kernel and
// CUB, against the copy bandwidth.
//
// One call of lab2::shared_sum sums at most 1024^2 floats (4 MiB), which fits in the L2 cache
// several times over. To time DRAM rather than a launch, the timed work is 64 calls over
// consecutive slices of one 256 MiB array (five times the H100's 50 MB L2), each summing the
// most the lab allows; the other rows sum the same 256 MiB in one go. --size N sets the slice
// (at most 1024^2); the calls then cover min(64, 2^26 / N) slices, at least one.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_errors.h"
#include "cudalab/lab2.h"
#include "diagnose.h"
#include "guarded_buffer.h"
#include "suite.h"
#include "sum_baselines.h"
#include "sum_reference.h"
#include "timer.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t slice = req.shape ? req.shape->dims[0] : lab2::kMaxElements;  // the checks rejected > kMax
  const size_t calls = std::clamp<size_t>((size_t(1) << 26) / slice, 1, 64);
  const size_t n = calls * slice;
  const std::vector<float> input = sum_input(n, req.seed);

  GuardedBuffer data("the timing input", n), sums("d_block_sums", lab2::num_blocks(slice)), total("d_sum", 1);
  data.upload(input);

  SumTimingReport t(n, ", your code as " + with_commas(calls) + " calls of " + with_commas(slice));

  // Each call writes the same d_block_sums and d_sum: the launches run one after another on
  // the default stream, so they never overlap.
  Timing student = time_gpu([&] {
    for (size_t k = 0; k < calls; ++k) lab2::shared_sum(data.get() + k * slice, sums.get(), total.get(), slice);
  });
  // d_sum holds the last call's answer: the last slice's sum.
  if (!t.check_total(std::vector<float>(input.end() - slice, input.end()), total.download()[0])) return t.report;
  t.add("your two launches, " + with_commas(calls) + " calls", "student", student.median_ms,
        calls > 1 ? "each call sums at most 1024^2 elements (lab 3 lifts this)" : "");

  t.add_comparisons(input, data.get());
  return t.report;
}

}  // namespace cudalab
