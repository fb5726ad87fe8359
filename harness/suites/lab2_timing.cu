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

#include "ceilings.h"
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
  const size_t bytes = n * sizeof(float);
  const std::vector<float> input = sum_input(n, req.seed);

  GuardedBuffer data("the timing input", n), sums("d_block_sums", lab2::num_blocks(slice)), total("d_sum", 1);
  data.upload(input);

  TimingReport t;
  t.status = "measured";
  t.size = "n = " + with_commas(n) + " floats (" + with_commas(bytes >> 20) + " MiB), your code as " +
           with_commas(calls) + " calls of " + with_commas(slice);
  t.note = "CUDA events, median of 20 after 3 warm-ups, L2 flushed before each";
  t.ceiling_name = "device-to-device copy (bytes read + written)";
  t.ceiling_value = copy_bandwidth_gbs(bytes);
  t.ceiling_unit = "GB/s";
  auto row = [&](std::string name, std::string role, double ms, std::string note = "") {
    double gbs = double(bytes) / (ms * 1e6);  // bytes read / time, as for every sum
    // Only GPU kernels are judged against the GPU's memory bandwidth.
    bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
    t.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / t.ceiling_value : 0, note});
  };

  // Each call writes the same d_block_sums and d_sum: the launches run one after another on
  // the default stream, so they never overlap.
  Timing student = time_gpu([&] {
    for (size_t k = 0; k < calls; ++k) lab2::shared_sum(data.get() + k * slice, sums.get(), total.get(), slice);
  });
  row("your two launches, " + with_commas(calls) + " calls", "student", student.median_ms,
      calls > 1 ? "each call sums at most 1024^2 elements (lab 3 lifts this)" : "");

  Timing cpu = time_host([&] {
    volatile double s = serial_sum(input);
    (void)s;
  });
  row("one CPU core (serial, double)", "cpu", cpu.median_ms);
  row("naive interleaved, all levels (harness)", "baseline", time_naive_interleaved_sum(data.get(), n).median_ms);
  row("CUB DeviceReduce::Sum", "vendor", time_cub_sum(data.get(), n).median_ms);
  return t;
}

}  // namespace cudalab
