// Timing the lab's code, as the checker can believe it. CUDA events must be recorded in the
// process that launches, so the kernel runner times; the checker
//   * runs the calls in batches of R back to back (timing_bound.h: R makes a batch last about
//     20 ms on the checker's clock, memory allowing), every call on buffers of its own: fresh
//     inputs from a seed of its own, poisoned outputs, all made before "go" with the L2 flushed
//     after them, so no call finds its inputs cached and no answer can be reused;
//   * checks the outputs of calls drawn after each batch ran (the first, the last and others at
//     random; every call when the inputs are small), so a call skipped or answered from a cache
//     is caught; of a large output, elements drawn then too (LabCall::sampled_output);
//   * holds its own clock around each batch (from "go" to "done") and refuses a reported time
//     above it, or below the clock's time less a fixed overhead, by more than 3% (timing_bound.h);
//   * refuses a batch in which the lab's code left a host thread running (its work could run
//     after the stop event and count in neither clock);
//   * refuses a time below the physical floor (the bytes at 1.5 times the copy bandwidth, or the
//     flops at three times cuBLAS's rate), measured after the runner is gone.
// The baselines, the ceiling and the floor are measured by the checker itself only after the
// student's runner and every process of its group are gone (end_student_processes()).
// A refused time earns no speed points; the report says why.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "timing_bound.h"
#include "checker/types/timing_report.h"
#include "wire/random.h"
#include "checker/calls/lab_call.h"
#include "checker/calls/runner_session.h"

namespace cudalab {

struct StudentTimingConfig {
  // Warm-up calls: the first alone, then warmups - 1 more in a batch, unless the first lasted a
  // whole batch (target_batch_ms) by itself. Then batches of R until R settles; the first at the
  // settled R is the first timed batch.
  int warmups = 3;
  int batches = 5;  // timed batches of R calls; the median batch counts
  bool flush_l2 = true;
  TimeBound bound;
  uint64_t memory_budget_bytes = 0;  // GPU memory all of a batch's buffers may take (0: half the GPU's)
  uint64_t verify_elements = uint64_t(1) << 31;  // input elements checked per timing, at most (roughly)
  // false: only the first warm-up batch's calls are checked (the harness's own trusted baselines,
  // whose checking would otherwise take longer than their timing).
  bool check_later_batches = true;
};

struct StudentTiming {
  bool ok = false;  // measured and believed (the floor aside: accept_student_timing)
  std::string problem;  // why not: a wrong answer in call 7, a refused time, ...
  bool wrong_answer = false;  // a call's output was wrong (problem says how)
  double median_ms = 0;  // per call: the runner's events, median batch
  double wall_median_ms = 0;  // per call: the checker's own clock less the overhead, median batch
  double least_ms = 0;  // the least time per call the checker's clock allowed
  int reps = 0;  // calls per timed batch
  int batches = 0;  // timed batches
  std::vector<double> all_ms;  // per timed batch: the reported time per call
  // "5 batches of 155 calls": what this timing's batches were (shared_timing_method() says the rest).
  std::string method() const;
};

// The seed of timed call `rep`'s inputs: every call has inputs of its own, so no call's answer
// can be another's.
inline uint64_t timed_call_seed(uint64_t seed, int rep) {
  return derive_seed(seed, ("timing " + std::to_string(rep)).c_str());
}

// make_call(rep) builds call rep (warm-ups included; rep counts from 0 over the whole timing);
// verify(rep, call, result) returns "" when its output is right, else what is wrong. Runs in
// `runner`'s kernel runner; does not end it (student_processes_ended() does).
StudentTiming time_lab_calls(RunnerSession& runner, const std::function<LabCall(int rep)>& make_call,
                             const std::function<std::string(int rep, const LabCall&, const LabCallResult&)>& verify,
                             const StudentTimingConfig& cfg = {});

// True when the timing is believed: t.ok and, when floor_ms > 0, t.median_ms at least the
// physical floor (floor_what says what it is: "reading 256 MiB at 1.5 times the copy
// bandwidth"). Otherwise marks `report` "wrong_answer" (a call's output was wrong) or
// "refused" (a bound was broken), with the reason, and returns false.
bool accept_student_timing(const StudentTiming& t, TimingReport& report, double floor_ms = 0,
                           const std::string& floor_what = "");

// Ends the student's processes (RunnerSession::end_student_processes()) before the checker's
// own timings. False, with `report` marked "error", when a process of theirs outlived SIGKILL.
bool student_processes_ended(RunnerSession& runner, TimingReport& report);

// How every GPU row of a timing table is timed, the student's and the harness's (baseline_timing.h).
std::string shared_timing_method();

// The ceiling of the sum, transpose, histogram and top-k labs, timed by the checker itself.
inline const char* const kCopyCeilingHow = "The ceiling: the copy, the checker's CUDA events around each, median of 20";

// The report's note on method (the table's header): the one method of every GPU row, the
// student's batches and clock, the CPU row's method, then `ceiling_how`.
std::string timing_method_note(const StudentTiming& t, const std::string& ceiling_how = kCopyCeilingHow);

}  // namespace cudalab
