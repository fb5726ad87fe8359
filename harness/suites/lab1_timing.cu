// Lab 1's timing: the student's kernel, the end-to-end time including the copy from the
// host, one CPU core, the harness's naive kernel and CUB, against the copy bandwidth.
#include <cuda_runtime.h>

#include "cuda_errors.h"
#include "cudalab/lab1.h"
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

  SumTimingReport t(n);

  // The kernel sums in place, so every repeat starts from a fresh copy (outside the timing).
  auto restore = [&] { work.copy_from(pristine); };
  Timing kernel = time_gpu([&] { lab1::block_sums(work.get(), sums.get(), n); }, TimerConfig{}, restore);
  if (!t.check_block_sums(input, lab1::kBlockSize, sums.download())) return t.report;
  t.add("your kernel (block sums)", "student", kernel.median_ms);

  // End to end: what a program that starts with the data on the host pays.
  std::vector<float> host_sums(lab1::num_blocks(n));
  Timing h2d = time_gpu(
      [&] { require(cudaMemcpy(work.get(), input.data(), bytes, cudaMemcpyHostToDevice), "host-to-device copy"); },
      TimerConfig{3, 5, false});
  t.add("host-to-device copy of the input", "end_to_end", h2d.median_ms, "pageable host memory, over PCIe; median of 5 after 3 warm-ups, L2 not flushed");
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
  t.add("end to end: copy in, kernel, copy out, add", "end_to_end", e2e.median_ms,
        "the copy dominates: keep data on the GPU between kernels; median of 5 after 3 warm-ups, L2 not flushed");

  t.add_comparisons(input, pristine.get());
  return t.report;
}

}  // namespace cudalab
