// What the sum labs (1, 2, 3) are timed against, besides one CPU core.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "timer.h"
#include "timed_call.h"
#include "timing_report.h"

namespace cudalab {

// The harness's own naive baseline: the in-place interleaved %-stride tree in global
// memory, 1024 threads a block, partial sums added by a second pass of the same kernel
// until one value remains. Works on a scratch copy of d_in (n floats + partials).
Timing time_naive_interleaved_sum(const float* d_in, size_t n);

// CUB's DeviceReduce::Sum, the vendor library's answer.
Timing time_cub_sum(const float* d_in, size_t n);

// The frame every sum lab's timing shares: n floats summed, judged by bytes read against the
// device-to-device copy bandwidth. `size_note` is appended to the size line. The student is
// timed first (in the runner); add_student() then ends the student's processes and only then
// measures the ceiling; the baselines come after it.
class SumTimingReport {
 public:
  SumTimingReport(size_t n, const std::string& size_note = "");
  // A row; GB/s are bytes read / time, and only GPU kernels get a fraction of the ceiling.
  void add(const std::string& name, const std::string& role, double ms, const std::string& note = "");
  // The rows every sum lab compares against: one CPU core, the naive kernel, CUB.
  void add_comparisons(const std::vector<float>& input, const float* d_input);
  // The student's row from the runner's timed batches. Ends the student's processes, measures
  // the copy bandwidth, and holds the time to the floor: the bytes at 1.5 times that bandwidth
  // (a read-only kernel may beat a copy, never by that much). A wrong answer or a refused time
  // marks the report ("wrong_answer", "refused": no time counts) and returns false.
  bool add_student(const StudentTiming& t, const std::string& name, const std::string& note = "");
  StudentTimingConfig student_config() const { return {}; }
  TimingReport report;

 private:
  size_t n_, bytes_;
};

}  // namespace cudalab
