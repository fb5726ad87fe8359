// Lab 8's timing: the student's top-k for k = 64 of 2^26 floats, against one CPU core, the
// harness's naive k-pass kernel and CUB's full radix sort (harness/baselines/topk.cu), every GPU
// row timed the same way (each in a kernel runner, every call on values of its own and checked:
// baseline_timing.h). The rate is the input read (n floats).
#include <string>

#include "call.h"
#include "checker/calls/lab_call.h"
#include "checker/types/suite.h"
#include "checker/gpu/ceilings.h"
#include "checker/gpu/timer.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/topk_reference.h"
#include "checker/timing/baseline_timing.h"
#include "checker/timing/timed_call.h"
#include "cudalab/lab8.h"
#include "wire/cuda_errors.h"
#include "wire/random.h"

namespace cudalab {

wire::Fill lab8_fill(uint64_t seed, float lo, float hi);  // lab_specs/lab8/checks.cpp

TimingReport lab_timing(const TimingRequest& req) {
  const size_t n = req.shape ? req.shape->dims[0] : size_t(1) << 26;  // 256 MiB: five times the H100's L2
  const int k = n < 64 ? int(n) : 64;
  const size_t bytes = n * sizeof(float);
  TimingReport report;
  report.status = "measured";
  report.size =
      "k = " + std::to_string(k) + " of n = " + with_commas(n) + " floats (" + with_commas(bytes >> 20) + " MiB)";
  report.ceiling_name = "device-to-device copy (bytes read + written)";
  report.ceiling_unit = "GB/s";
  auto add = [&](const std::string& name, const std::string& role, double ms, const std::string& note) {
    const double gbs = double(bytes) / (ms * 1e6);
    const bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
    report.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / report.ceiling_value : 0, note});
  };

  auto fill_of = [&](int rep) { return lab8_fill(timed_call_seed(req.seed, rep), -1000.0f, 1000.0f); };
  const size_t scratch_n = lab8::scratch_elements(n, k);
  const MakeCall make_call = [&](int rep) {
    LabCall call(lab8_call::kCall);
    call.random_input(lab8_call::kValues, n, fill_of(rep));
    call.output(lab8_call::kScratchValues, scratch_n, false);
    call.output(lab8_call::kScratchIndices, scratch_n, false);
    call.output(lab8_call::kTopValues, size_t(k));
    call.output(lab8_call::kTopIndices, size_t(k));
    call.scalar(lab8_call::kN, int64_t(n));
    call.scalar(lab8_call::kK, int64_t(k));
    return call;
  };
  // The reference without the 2^26 values on the host (on the checker's GPU: top_k_of_fill); they
  // are made only to say what is wrong with a wrong answer.
  const VerifyCall verify = [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
    const std::vector<TopKEntry> expected = top_k_of_fill(n, fill_of(rep), size_t(k));
    if (top_k_matches(expected, res.floats(3), res.i32s(4))) return "";
    const CheckResult r = judge_top_k(make_input<float>(n, fill_of(rep)), expected, res.floats(3), res.i32s(4));
    return r.status == Status::Pass ? "" : r.message;
  };
  const StudentTiming st = time_lab_calls(req.runner, make_call, verify);
  // Everything below is the checker's own, timed with no process of the student's alive.
  if (!student_processes_ended(req.runner, report) || !accept_student_timing(st, report)) return report;
  report.ceiling_value = copy_bandwidth_gbs(req.runner, bytes);
  if (!accept_student_timing(st, report, double(bytes) / (1.5 * report.ceiling_value * 1e6),
                             "reading " + with_commas(bytes >> 20) + " MiB at 1.5 times the copy bandwidth"))
    return report;
  report.note = timing_method_note(st);
  add("your top-k, all levels", "student", st.median_ms, st.method());

  if (!req.graded_rows_only) {  // the grader's speed points need the naive row alone
    const std::vector<float> input = make_input<float>(n, lab8_fill(req.seed, -1000.0f, 1000.0f));
    const Timing cpu = time_host(
        req.runner,
        [&] {
          volatile int first = top_k_serial(input, size_t(k))[0].index;
          (void)first;
        },
        3);  // as every lab's CPU row (time_host: one run when it takes over 0.1 s)
    add("one CPU core (one pass, a heap of k)", "cpu", cpu.median_ms, "");
  }
  if (req.student_row_only) return report;  // the grader's anchor runs time the harness's rows
  // The harness's kernels on the student's very calls: fresh values, the top k checked alike.
  const BaselineSession baselines(req.runner, 8);
  const StudentTiming naive = baselines.time(0, make_call, verify);
  if (baseline_timed(naive, "the k-pass kernel", report))
    add("k passes, each the next element (harness)", "baseline", naive.median_ms, batches_note(naive));
  if (req.graded_rows_only || n > size_t(INT32_MAX)) return report;  // CUB's sort counts in int
  const StudentTiming cub = baselines.time(1, make_call, verify);
  if (baseline_timed(cub, "CUB's sort", report))
    add("CUB DeviceRadixSort::SortPairsDescending, first k", "vendor", cub.median_ms, batches_note(cub));
  return report;
}

}  // namespace cudalab
