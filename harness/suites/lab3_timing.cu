// Lab 3's timing: the student's multi-level sum, one CPU core, the harness's naive kernel and
// CUB, against the copy bandwidth. The reference must reach half of that bandwidth here.
#include <cuda_runtime.h>

#include "ceilings.h"
#include "cuda_errors.h"
#include "cudalab/lab3.h"
#include "diagnose.h"
#include "guarded_buffer.h"
#include "suite.h"
#include "sum_baselines.h"
#include "sum_reference.h"
#include "timer.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MB: five times the H100's L2
  const size_t bytes = n * sizeof(float);
  const std::vector<float> input = sum_input(n, req.seed);

  GuardedBuffer data("the timing input", n), scratch("d_scratch", lab3::scratch_elements(n)), total("d_sum", 1);
  data.upload(input);

  TimingReport t;
  t.status = "measured";
  t.size = "n = " + with_commas(n) + " floats (" + with_commas(bytes >> 20) + " MiB)";
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

  // The input is read-only here, so no repeat needs a fresh copy.
  Timing student = time_gpu([&] { lab3::multilevel_sum(data.get(), scratch.get(), total.get(), n); });
  row("your multi-level sum, all levels", "student", student.median_ms);

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
