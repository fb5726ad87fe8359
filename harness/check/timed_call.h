// Timing the lab's code, as the checker can believe it. CUDA events must be recorded in the
// process that launches, so the kernel runner times each repetition; the checker
//   * gives every repetition fresh inputs (make_call(rep) uses a new seed) and checks its
//     output (verify), so no answer can be cached or skipped; outputs over 16 MiB are checked
//     in the first and last repetitions and in others drawn after they ran (timed_call.cpp);
//   * holds its own clock around each repetition (from "go" to "done") and refuses a
//     reported time above it, or far below it;
//   * refuses a time below the physical floor (the bytes at 1.5 times the copy bandwidth
//     measured in the same run, or the flops at three times cuBLAS's rate);
//   * judges the outputs as they were at the runner's stop event (a snapshot taken right after
//     it, on the same stream), so work a host thread finishes later counts for nothing.
// A refused time earns no speed points; the report says why.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "lab_call.h"
#include "timing_report.h"

namespace cudalab {

struct StudentTimingConfig {
  int warmups = 3;
  int repeats = 20;
  bool flush_l2 = true;
  double floor_ms = 0;          // the physical floor; 0: none
  std::string floor_what;       // "256 MiB read at the copy bandwidth (2,955 GB/s)"
};

struct StudentTiming {
  bool ok = false;              // measured and believed
  std::string problem;          // why not: a wrong answer in repetition 7, a refused time, ...
  bool wrong_answer = false;    // a repetition's output was wrong (problem says how)
  double median_ms = 0;         // the runner's CUDA events
  double wall_median_ms = 0;    // the checker's own clock
  std::vector<double> all_ms;
};

// make_call(rep) builds repetition rep's call (warm-ups included, rep counts from 0);
// verify(rep, call, result) returns "" when the output is right, else what is wrong.
StudentTiming time_lab_calls(const std::function<LabCall(int rep)>& make_call,
                             const std::function<std::string(int rep, const LabCall&, const LabCallResult&)>& verify,
                             const StudentTimingConfig& cfg);

// True when the timing is believed. Otherwise marks `report` "wrong_answer" (a repetition's
// output was wrong) or "refused" (a bound was broken), with the reason, and returns false.
bool accept_student_timing(const StudentTiming& t, TimingReport& report);

}  // namespace cudalab
