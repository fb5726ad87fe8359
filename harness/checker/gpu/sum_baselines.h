// The frame of the sum labs' timings (1, 2, 3, 7): the student's row, one CPU core, and the
// harness's naive kernel and CUB's reduction, timed as the student's code is (baseline_timing.h).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "checker/types/suite.h"
#include "checker/timing/timed_call.h"
#include "checker/types/timing_report.h"
#include "wire/protocol.h"

namespace cudalab {

// The frame every sum lab's timing shares: n floats summed, judged by bytes read against the
// device-to-device copy bandwidth. `size_note` is appended to the size line. The student is
// timed first (in the runner); add_student() then ends the student's processes and only then
// measures the ceiling; the baselines come after it.
class SumTimingReport {
 public:
  SumTimingReport(RunnerSession& runner, size_t n, const std::string& size_note = "");
  // A row; GB/s are bytes read / time, and only GPU kernels get a fraction of the ceiling.
  void add(const std::string& name, const std::string& role, double ms, const std::string& note = "");
  // The rows every sum lab compares against: one CPU core (on cpu_input()), then the naive kernel
  // and CUB in lab `lab`'s baseline runner, on n floats made by fill_of(rep) for each call, as the
  // student's were. With req.graded_rows_only (the grader), the naive kernel alone.
  void add_comparisons(int lab, const TimingRequest& req, const std::function<wire::Fill(int rep)>& fill_of,
                       const std::function<std::vector<float>()>& cpu_input);
  // The student's row from the runner's timed batches. Ends the student's processes, measures
  // the copy bandwidth, and holds the time to the floor: the bytes at 1.5 times that bandwidth
  // (a read-only kernel may beat a copy, never by that much). A wrong answer or a refused time
  // marks the report ("wrong_answer", "refused": no time counts) and returns false.
  bool add_student(const StudentTiming& t, const std::string& name, const std::string& note = "");
  StudentTimingConfig student_config() const { return {}; }
  TimingReport report;

 private:
  RunnerSession& runner_;
  size_t n_, bytes_;
};

}  // namespace cudalab
