// The harness's own kernels (the naive one, CUB or cuBLAS, lab 9's ladder), timed exactly as the
// student's code is (timed_call.h): in a kernel runner process, lab N's baseline runner
// (build/cuda/baselines/labN-runner, harness/baselines/), through time_lab_calls, so every GPU row
// of a timing table has the same process boundary, fresh inputs for every call, the L2 flushed
// before each batch, batches of R calls about 20 ms long, the median batch, and the checker's
// clock around each batch. The student's code must run in a process of its own (the trust design,
// docs/architecture.md); the baselines are put in one too, so that whatever a runner's batch
// costs besides the kernels (waking it, its launch record, fresh buffers' first touch) weighs on
// every row alike. The baseline runner is trusted code: "no kernel ran" is not judged on it
// (cuBLAS launches through the driver, which the launch record does not see).
#pragma once
#include <functional>
#include <string>

#include "timed_call.h"
#include "checker/calls/lab_call.h"
#include "checker/calls/runner_process.h"
#include "checker/calls/runner_session.h"

namespace cudalab {

using MakeCall = std::function<LabCall(int rep)>;
using VerifyCall = std::function<std::string(int rep, const LabCall&, const LabCallResult&)>;

// Lab `lab`'s baseline runner for as long as it lives: made after the student's processes have
// ended (student_processes_ended()), and ended, with every process of its own, when it goes.
class BaselineSession {
 public:
  BaselineSession(RunnerSession& runner, int lab);
  ~BaselineSession();
  BaselineSession(const BaselineSession&) = delete;
  BaselineSession& operator=(const BaselineSession&) = delete;

  // Times baseline `which` (harness/baselines/entry.cpp says which is which for the lab): each
  // call is make_call(rep) with `which` added as its last scalar. The timing is the student's to
  // the letter; only the checking differs: the warm-up's calls are checked with verify, the timed
  // batches' are not (trusted code, whose checking would take longer than its timing).
  // t.ok false with t.problem when it could not be timed.
  StudentTiming time(int which, const MakeCall& make_call, const VerifyCall& verify,
                     const StudentTimingConfig& cfg = {}) const;

 private:
  RunnerSession& runner_;  // the run's: the student's runner's configuration comes back when this goes
  int lab_;
  RunnerConfig saved_;
  std::string program_;
};

// "5 batches of 155 calls": a row's note, since R differs from row to row.
std::string batches_note(const StudentTiming& t);

// True when baseline `name` was timed; otherwise says why in the report's note (the row is left
// out: a time the harness could not measure is no comparison).
bool baseline_timed(const StudentTiming& t, const std::string& name, TimingReport& report);

}  // namespace cudalab
