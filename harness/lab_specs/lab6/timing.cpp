// Lab 6's timing: the student's histogram on uniform and on skewed bytes, against one CPU core,
// the harness's global-atomics kernel and CUB's HistogramEven (harness/baselines/histogram.cu),
// every GPU row timed the same way (each in a kernel runner, every call on bytes of its own and
// checked: baseline_timing.h), as a fraction of the copy bandwidth (a histogram reads n bytes
// and writes 1 KiB: bandwidth-bound when done well).
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/types/suite.h"
#include "checker/gpu/ceilings.h"
#include "checker/gpu/timer.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/histogram_reference.h"
#include "checker/timing/baseline_timing.h"
#include "checker/timing/timed_call.h"
#include "cudalab/lab6.h"
#include "wire/random.h"

namespace cudalab {
namespace {

// Uniform bytes, and skewed ones (u^8: half of them 0), as the checks make them.
wire::Fill fill_of(bool skewed, uint64_t seed) {
  wire::Fill f = wire::uniform_fill(seed, /*stream=*/6, 0.0f, 256.0f);
  if (skewed) f.power = 8;
  return f;
}

const char* kind_of(bool skewed) { return skewed ? "skewed" : "uniform"; }

// Call rep of a timing: n fresh bytes of its own, the 256 bins poisoned.
MakeCall calls_of(bool skewed, size_t n, uint64_t seed) {
  return [=](int rep) {
    LabCall call(lab6_call::kCall);
    const uint64_t s =
        derive_seed(seed, ("timing " + std::string(kind_of(skewed)) + " " + std::to_string(rep)).c_str());
    call.random_input(lab6_call::kIn, n, fill_of(skewed, s));
    call.output(lab6_call::kHist, lab6::kBins);
    call.scalar(lab6_call::kN, int64_t(n));
    return call;
  };
}

VerifyCall verify_of(bool skewed, size_t n, uint64_t seed) {
  return [=](int rep, const LabCall&, const LabCallResult& res) -> std::string {
    const uint64_t s =
        derive_seed(seed, ("timing " + std::string(kind_of(skewed)) + " " + std::to_string(rep)).c_str());
    const CheckResult r = compare_histogram(histogram_of_fill(n, fill_of(skewed, s)), res.u32s(1), n);
    return r.status == Status::Pass ? "" : "on " + std::string(kind_of(skewed)) + " bytes: " + r.message;
  };
}

}  // namespace

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

  StudentTiming student[2];
  for (int skewed = 0; skewed < 2; ++skewed) {
    student[skewed] = time_lab_calls(req.runner, calls_of(skewed, n, req.seed), verify_of(skewed, n, req.seed));
    if (!student[skewed].ok) break;
  }
  // Everything below is the checker's own, timed with no process of the student's alive.
  if (!student_processes_ended(req.runner, report)) return report;
  for (const auto& st : student)
    if (!accept_student_timing(st, report)) return report;
  report.ceiling_value = copy_bandwidth_gbs(req.runner, n);
  for (int skewed = 0; skewed < 2; ++skewed) {
    if (!accept_student_timing(student[skewed], report, double(n) / (1.5 * report.ceiling_value * 1e6),
                               "reading " + with_commas(n >> 20) + " MiB at 1.5 times the copy bandwidth"))
      return report;
    add(std::string("your histogram, ") + kind_of(skewed) + " bytes", "student", student[skewed].median_ms,
        student[skewed].method());
  }
  report.note = timing_method_note(student[0]);

  if (!req.graded_rows_only) {  // the grader's speed points need the naive rows alone
    const std::vector<uint8_t> input = make_input<uint8_t>(n, fill_of(false, req.seed));
    const Timing cpu = time_host(
        req.runner,
        [&] {
          volatile uint64_t first = histogram_serial(input)[0];
          (void)first;
        },
        3);  // as every lab's CPU row (time_host: one run when it takes over 0.1 s)
    add("one CPU core (serial, uniform bytes)", "cpu", cpu.median_ms);
  }

  if (req.student_row_only) return report;  // the grader's anchor runs time the harness's rows
  // The harness's kernels on calls made as the student's were: fresh bytes, bins checked alike.
  // The global-atomics kernel on uniform bytes only (the grader's anchor): on skewed bytes one of
  // its calls took 133 ms on the H100, a second of every passing `make lab6` for a row that
  // tells nothing the uniform one does not.
  double naive_ms = 0;
  const BaselineSession baselines(req.runner, 6);
  for (int skewed = 0; skewed < (req.graded_rows_only ? 1 : 2); ++skewed) {
    const std::string kind = kind_of(skewed);
    if (!skewed) {
      const StudentTiming naive = baselines.time(0, calls_of(skewed, n, req.seed), verify_of(skewed, n, req.seed));
      if (baseline_timed(naive, "the global-atomics kernel, " + kind, report)) {
        naive_ms = naive.median_ms;
        add("global atomics only, " + kind + " (harness)", "baseline", naive.median_ms, batches_note(naive));
      }
    }
    if (req.graded_rows_only || n > size_t(INT32_MAX)) continue;  // CUB's HistogramEven counts in int
    const StudentTiming cub = baselines.time(1, calls_of(skewed, n, req.seed), verify_of(skewed, n, req.seed));
    if (baseline_timed(cub, "CUB, " + kind, report))
      add("CUB DeviceHistogram::HistogramEven, " + kind, "vendor", cub.median_ms, batches_note(cub));
  }
  if (naive_ms > 0 && student[0].median_ms > 0.8 * naive_ms)
    report.note +=
        ". Your histogram is no faster than the harness's global-atomics kernel: is the shared-memory "
        "histogram in use, with one global atomicAdd per bin per block?";
  return report;
}

}  // namespace cudalab
