// Lab 1's timing: the student's kernel, the end-to-end time including the copy from the
// host, one CPU core, the harness's naive kernel and CUB, against the copy bandwidth.
#include <cuda_runtime.h>

#include "ceilings.h"
#include "cuda_errors.h"
#include "cudalab/lab1.h"
#include "diagnose.h"
#include "guarded_buffer.h"
#include "sum_baselines.h"
#include "sum_reference.h"
#include "suite.h"
#include "timer.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MB: five times the H100's L2
  const size_t bytes = n * sizeof(float);
  const std::vector<float> input = sum_input(n, req.seed);

  GuardedBuffer pristine("the timing input", n), work("the timing work copy", n),
      sums("d_block_sums", lab1::num_blocks(n));
  pristine.upload(input);

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

  // The kernel sums in place, so every repeat starts from a fresh copy (outside the timing).
  auto restore = [&] { work.copy_from(pristine); };
  Timing kernel = time_gpu([&] { lab1::block_sums(work.get(), sums.get(), n); }, TimerConfig{}, restore);
  row("your kernel (block sums)", "student", kernel.median_ms);

  // End to end: what a program that starts with the data on the host pays.
  std::vector<float> host_sums(lab1::num_blocks(n));
  Timing h2d = time_gpu(
      [&] { require(cudaMemcpy(work.get(), input.data(), bytes, cudaMemcpyHostToDevice), "host-to-device copy"); },
      TimerConfig{3, 5, false});
  row("host-to-device copy of the input", "end_to_end", h2d.median_ms, "pageable host memory, over PCIe");
  Timing e2e = time_gpu(
      [&] {
        require(cudaMemcpy(work.get(), input.data(), bytes, cudaMemcpyHostToDevice), "host-to-device copy");
        lab1::block_sums(work.get(), sums.get(), n);
        require(cudaMemcpy(host_sums.data(), sums.get(), host_sums.size() * sizeof(float), cudaMemcpyDeviceToHost),
                "device-to-host copy");
        double total = 0;
        for (float v : host_sums) total += v;
        (void)total;
      },
      TimerConfig{3, 5, false});
  row("end to end: copy in, kernel, copy out, add", "end_to_end", e2e.median_ms,
      "the copy dominates: keep data on the GPU between kernels");

  Timing cpu = time_host([&] { volatile double s = serial_sum(input); (void)s; });
  row("one CPU core (serial, double)", "cpu", cpu.median_ms);
  row("naive interleaved, all levels (harness)", "baseline", time_naive_interleaved_sum(pristine.get(), n).median_ms);
  row("CUB DeviceReduce::Sum", "vendor", time_cub_sum(pristine.get(), n).median_ms);
  return t;
}

}  // namespace cudalab
