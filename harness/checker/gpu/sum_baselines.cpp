#include "sum_baselines.h"

#include "ceilings.h"
#include "timer.h"
#include "baselines/calls.h"
#include "checker/calls/lab_call.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/sum_reference.h"
#include "checker/timing/baseline_timing.h"

namespace cudalab {

SumTimingReport::SumTimingReport(RunnerSession& runner, size_t n, const std::string& size_note)
    : runner_(runner), n_(n), bytes_(n * sizeof(float)) {
  report.status = "measured";
  report.size = "n = " + with_commas(n) + " floats (" + with_commas(bytes_ >> 20) + " MiB)" + size_note;
  report.note = "every GPU row timed one way: " + shared_timing_method();
  report.ceiling_name = "device-to-device copy (bytes read + written)";
  report.ceiling_unit = "GB/s";
}

void SumTimingReport::add(const std::string& name, const std::string& role, double ms, const std::string& note) {
  double gbs = double(bytes_) / (ms * 1e6);
  bool on_gpu = role == "student" || role == "baseline" || role == "vendor";
  report.rows.push_back({name, role, ms, gbs, "GB/s", on_gpu ? gbs / report.ceiling_value : 0, note});
}

bool SumTimingReport::add_student(const StudentTiming& st, const std::string& name, const std::string& note) {
  if (!student_processes_ended(runner_, report)) return false;
  if (!accept_student_timing(st, report)) return false;
  report.ceiling_value = copy_bandwidth_gbs(runner_, bytes_);  // with no process of the student's alive
  const double floor_ms = double(bytes_) / (1.5 * report.ceiling_value * 1e6);
  if (!accept_student_timing(st, report, floor_ms,
                             "reading " + with_commas(bytes_ >> 20) + " MiB at 1.5 times the copy bandwidth"))
    return false;
  report.note = timing_method_note(st);
  add(name, "student", st.median_ms, note.empty() ? st.method() : note + "; " + st.method());
  return true;
}

void SumTimingReport::add_comparisons(int lab, const TimingRequest& req,
                                      const std::function<wire::Fill(int rep)>& fill_of,
                                      const std::function<std::vector<float>()>& cpu_input) {
  if (req.student_row_only) return;
  if (!req.graded_rows_only) {
    const std::vector<float> input = cpu_input();
    Timing cpu = time_host(
        runner_,
        [&] {
          volatile double s = serial_sum(input);
          (void)s;
        },
        3);
    add("one CPU core (serial, double)", "cpu", cpu.median_ms);
  }

  // The harness's kernels, each call on n fresh floats of its own, its sum checked as a sum.
  const size_t n = n_;
  auto make_call = [&](int rep) {
    LabCall call(baseline_call::sum_call(lab));
    call.random_input(baseline_call::kSumIn, n, fill_of(rep));
    call.output(baseline_call::kSumOut, 1);
    call.scalar(baseline_call::kSumN, int64_t(n));
    return call;
  };
  auto verify = [&](int rep, const LabCall&, const LabCallResult& res) -> std::string {
    const SumReference exact = sum_reference(n, fill_of(rep));
    const CheckResult r = check_sum(exact.sum, exact.abs_sum, res.floats(baseline_call::kSumOut)[0], n, nullptr);
    return r.status == Status::Pass ? "" : r.message;
  };
  const BaselineSession baselines(runner_, lab);
  const StudentTiming naive = baselines.time(0, make_call, verify);
  if (baseline_timed(naive, "the naive kernel", report))
    add("naive interleaved, all levels (harness)", "baseline", naive.median_ms, batches_note(naive));
  if (req.graded_rows_only) return;
  const StudentTiming cub = baselines.time(1, make_call, verify);
  if (baseline_timed(cub, "CUB", report)) add("CUB DeviceReduce::Sum", "vendor", cub.median_ms, batches_note(cub));
}

}  // namespace cudalab
