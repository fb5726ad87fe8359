// The checker's kernel runner: started on first use, kept while it serves, replaced after a
// failure. The run makes one (run_checks.cpp) and passes it down to every call, timing and
// profile run; nothing reaches it through a global.
#pragma once
#include <memory>
#include <string>

#include "runner_process.h"
#include "runner_words.h"

namespace cudalab {

class RunnerSession {
 public:
  RunnerSession() = default;
  RunnerSession(const RunnerConfig& config, int lab) { configure(config, lab); }
  RunnerSession(const RunnerSession&) = delete;
  RunnerSession& operator=(const RunnerSession&) = delete;

  // The runner the next start uses (the current one, if any, keeps serving until discarded).
  void configure(const RunnerConfig& config, int lab);
  const RunnerConfig& config() const { return config_; }
  int lab() const { return lab_; }
  // The lab file as the checker read it (empty until the run reads it): every call's report
  // names only what this file holds (runner_words.h).
  void set_source(const LabSource& source) { source_ = source; }
  const LabSource& source() const { return source_; }
  // The GPU gate whose start-ups this run's measured spans wait out (--gpu-gate; "": none),
  // kept whatever runner is configured (the baselines' batches are measured too).
  void set_measured_span_gate(const std::string& path) { span_gate_ = path; }
  const std::string& measured_span_gate() const { return span_gate_; }

  // The live runner, starting one when there is none. Throws std::runtime_error when none starts.
  RunnerProcess& runner();
  // Ends the current runner (after a crash, a hang, garbage or a lost context) and returns how it
  // had ended ("was killed by signal 11 (...)", or "").
  std::string discard();
  // Tells the runner to quit, at the end of the run.
  void finish() { end_student_processes(); }
  // Ends the student's processes before the checker times anything of its own (the baselines,
  // the ceiling, the floor): the runner is told to quit, given time to, then its whole process
  // group is killed and waited for (in the grader the runner's jail empties its cgroup before it
  // exits). False when a process of the group outlived SIGKILL for 5 s.
  bool end_student_processes();
  // Throws std::logic_error naming `what` while a kernel runner is alive: the checker's own
  // timings (checker/gpu/timer.cpp) call it, so that none can run beside the student's code.
  void require_no_student_process(const std::string& what) const;

 private:
  RunnerConfig config_;
  int lab_ = 0;
  LabSource source_;
  std::string span_gate_;
  std::unique_ptr<RunnerProcess> runner_;
};

}  // namespace cudalab
