// Lab 6's timing: the student's histogram (timed in the kernel runner, every repetition on
// bytes of its own and checked) on uniform and on skewed bytes, against one CPU core, the
// harness's global-atomics kernel and CUB's HistogramEven, as a fraction of the copy bandwidth
// (a histogram reads n bytes and writes 1 KiB: bandwidth-bound when done well).
#include <cuda_runtime.h>

#include <string>

#include "ceilings.h"
#include "cuda_errors.h"
#include "cudalab/lab6.h"
#include "diagnose.h"
#include "histogram_baselines.h"
#include "histogram_reference.h"
#include "lab_call.h"
#include "random.h"
#include "suite.h"
#include "timed_call.h"

namespace cudalab {

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 28;  // 256 MiB: five times the H100's L2
  TimingReport report;
  report.status = "measured";
  report.size = "n = " + with_commas(n) + " bytes (" + with_commas(n >> 20) + " MiB), uniform and skewed";
  report.ceiling_name = "device-to-device copy (bytes read + written)";
  report.ceiling_unit = "GB/s";
  auto add = [&](const std::string& name, const std::string& role, double ms, const std::string& note = "") {
    const double gbs = double(n) / (ms * 1e6);
    const bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
    report.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / report.ceiling_value : 0, note});
  };

  // Uniform bytes, and skewed ones (u^8: half of them 0), as the checks make them.
  auto fill_of = [](bool skewed, uint64_t seed) {
    wire::Fill f = uniform_fill(seed, /*stream=*/6, 0.0f, 256.0f);
    if (skewed) f.power = 8;
    return f;
  };
  StudentTiming student[2];
  for (int skewed = 0; skewed < 2; ++skewed) {
    const std::string kind = skewed ? "skewed" : "uniform";
    auto seed_of = [&](int rep) { return derive_seed(req.seed, ("timing " + kind + " " + std::to_string(rep)).c_str()); };
    student[skewed] = time_lab_calls(
        [&](int rep) {
          LabCall call("lab6::histogram", 6);
          call.random_input("the input array", wire::ElemType::U8, n, fill_of(skewed, seed_of(rep)));
          call.output("d_hist", wire::ElemType::U32, lab6::kBins);
          call.scalar(int64_t(n));
          return call;
        },
        [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
          const ByteHistogram expected = histogram_of_fill(n, fill_of(skewed, seed_of(rep)));
          const CheckResult r = compare_histogram(expected, res.u32s(1), n);
          return r.status == Status::Pass ? "" : "on " + kind + " bytes: " + r.message;
        });
    if (!student[skewed].ok) break;
  }
  // Everything below is the checker's own, timed with no process of the student's alive.
  if (!student_processes_ended(report)) return report;
  for (const auto& st : student)
    if (!accept_student_timing(st, report)) return report;
  report.ceiling_value = copy_bandwidth_gbs(n);
  double student_ms[2] = {0, 0};
  for (int skewed = 0; skewed < 2; ++skewed) {
    if (!accept_student_timing(student[skewed], report, double(n) / (1.5 * report.ceiling_value * 1e6),
                               "reading " + with_commas(n >> 20) + " MiB at 1.5 times the copy bandwidth"))
      return report;
    student_ms[skewed] = student[skewed].median_ms;
    add(std::string("your histogram, ") + (skewed ? "skewed" : "uniform") + " bytes", "student", student_ms[skewed]);
  }
  report.note = timing_method_note(student[0]);

  // The comparisons, on the seed's own uniform and skewed bytes.
  uint8_t* d_in = nullptr;
  require(cudaMalloc(&d_in, n), "allocating the timing input");
  double naive_ms[2] = {0, 0};
  for (int skewed = 0; skewed < 2; ++skewed) {
    const std::string kind = skewed ? "skewed" : "uniform";
    const std::vector<uint8_t> input = make_input_u8(n, fill_of(skewed, req.seed));
    require(cudaMemcpy(d_in, input.data(), n, cudaMemcpyHostToDevice), "uploading the timing input");
    if (!skewed) {
      const Timing cpu = time_host([&] {
        volatile uint64_t first = histogram_serial(input)[0];
        (void)first;
      });
      add("one CPU core (serial)", "cpu", cpu.median_ms);
    }
    naive_ms[skewed] = time_naive_histogram(d_in, n).median_ms;
    add("global atomics only, " + kind + " (harness)", "baseline", naive_ms[skewed]);
    const Timing cub = time_cub_histogram(d_in, n);
    if (cub.median_ms > 0) add("CUB DeviceHistogram::HistogramEven, " + kind, "vendor", cub.median_ms);
  }
  cudaFree(d_in);
  if (student_ms[0] > 0.8 * naive_ms[0] || student_ms[1] > 0.8 * naive_ms[1])
    report.note += ". Your histogram is no faster than the harness's global-atomics kernel: is the shared-memory "
                   "histogram in use, with one global atomicAdd per bin per block?";
  return report;
}

}  // namespace cudalab
