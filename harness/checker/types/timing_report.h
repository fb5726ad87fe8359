// Timing results as data: filled by a lab's timing (GPU build), printed and written by the report.
#pragma once
#include <string>
#include <vector>

namespace cudalab {

struct TimingRow {
  std::string name;  // "your kernel", "CUB DeviceReduce::Sum", ...
  std::string role;  // "student", "cpu", "baseline", "vendor", "ceiling", "end_to_end"
  double ms = 0;  // median time
  double rate = 0;  // throughput in `unit`
  std::string unit;  // "GB/s" or "TFLOP/s"
  double of_ceiling = 0;  // rate / ceiling rate (0 when not meaningful)
  std::string note;  // e.g. "measured on 16 sampled rows"
};

struct TimingReport {
  // "measured", "skipped", "emulated", "not_run", "error", "wrong_answer" (a timed repetition's
  // own result was wrong: the timed size is not among the checks' sizes) or "refused" (the
  // reported time broke a bound the checker holds it to, timed_call.h): no time counts.
  std::string status = "not_run";
  std::string note;  // method, or why not measured
  std::string size;  // the timed problem size
  std::string ceiling_name;  // "device-to-device copy" or "cuBLAS SGEMM"
  double ceiling_value = 0;
  std::string ceiling_unit;
  std::vector<TimingRow> rows;
  double seconds = 0;  // wall time the timing took (the runs, the checks, the baselines)

  const TimingRow* find(const std::string& role) const {
    for (const auto& r : rows)
      if (r.role == role) return &r;
    return nullptr;
  }

  // Called by a lab's timing when the output of its last timed repeat is wrong: nothing is
  // reported as the student's time. `what` says how it was wrong.
  // A time the checker cannot believe (timed_call.h says why): no time counts.
  void refused(const std::string& why) {
    status = "refused";
    rows.clear();
    note = "not timed: " + why;
  }

  void wrong_answer(const std::string& what) {
    status = "wrong_answer";
    rows.clear();
    note = "not timed: at the timed size (" + size + ") your code's answer was wrong: " + what +
           ". Replay it with --size and --no-timing to see the check's report";
  }
};

}  // namespace cudalab
