// Lab 1's timing: the student's kernel (timed in the kernel runner, every repetition on inputs
// of its own and checked), what copying the input from the host costs, one CPU core, the
// harness's naive kernel and CUB, against the copy bandwidth.
#include <cuda_runtime.h>

#include <string>

#include "call.h"
#include "checker/types/suite.h"
#include "checker/gpu/device_array.h"
#include "checker/gpu/sum_baselines.h"
#include "checker/gpu/timer.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/judging/tolerance.h"
#include "checker/timing/timed_call.h"
#include "cudalab/lab1.h"
#include "wire/cuda_errors.h"
#include "wire/random.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MB: five times the H100's L2
  const size_t bytes = n * sizeof(float), blocks = lab1::num_blocks(n);
  SumTimingReport t(req.runner, n);

  auto fill_of = [&](int rep) { return sum_fill(timed_call_seed(req.seed, rep)); };
  size_t sums = 0;
  const StudentTiming student = time_lab_calls(
      req.runner,
      [&](int rep) {
        LabCall call(lab1_call::kCall);
        call.random_input(lab1_call::kData, n, fill_of(rep));
        // Checked on 64 block sums drawn after the call ran (the last block's among them).
        sums = call.sampled_output(lab1_call::kBlockSums, blocks, 64);
        call.scalar(lab1_call::kN, int64_t(n));
        return call;
      },
      [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
        if (res.samples.at(sums).empty()) return "no block sum came back to be checked";
        for (const OutputSample& s : res.samples.at(sums)) {
          const size_t b = size_t(s.index), begin = b * lab1::kBlockSize, end = std::min(n, begin + lab1::kBlockSize);
          const SumReference ref = range_sum_reference(n, fill_of(rep), begin, end);
          if (!within(ref.sum, s.value, sum_tolerance(end - begin, ref.abs_sum)))
            return "block sum " + with_commas(b) + " is " + std::to_string(s.value) + ", expected " +
                   std::to_string(ref.sum);
        }
        return "";
      },
      t.student_config());
  if (!t.add_student(student, "your kernel (block sums)")) return t.report;

  if (!req.graded_rows_only) {
    // What a program that starts with the data on the host pays first.
    const std::vector<float> input = sum_input(n, req.seed);
    DeviceArray device_input("the timing input", n);
    Timing h2d = time_gpu(
        req.runner,
        [&] {
          require(cudaMemcpy(device_input.get(), input.data(), bytes, cudaMemcpyHostToDevice), "host-to-device copy");
        },
        TimerConfig{3, 5, false});
    t.add("host-to-device copy of the input", "end_to_end", h2d.median_ms,
          "pageable host memory, over PCIe; median of 5 after 3 warm-ups, L2 not flushed");
    t.add("end to end: the copy in, then your kernel", "end_to_end", h2d.median_ms + student.median_ms,
          "the two rows above added: keep data on the GPU between kernels");
  }
  t.add_comparisons(1, req, fill_of, [&] { return sum_input(n, req.seed); });
  return t.report;
}

}  // namespace cudalab
