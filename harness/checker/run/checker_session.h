// The checker's state for one run, made in main and passed down: nothing of it lives in a global.
// Each check's calls get a CallContext of their own from it (checker/calls/lab_call.h).
#pragma once
#include "checker/judging/schedule_probe.h"
#include "checker/calls/runner_session.h"

namespace cudalab {

struct CheckerSession {
  RunnerSession runner;  // the kernel runner, and the lab file as the checker read it
  // Whether the runner's own words may reach this run's report: not when a check of the run is
  // hidden (runner_words.h).
  bool runner_words_allowed = true;
  ScheduleProbeState probe;  // what the schedule probe keeps from check to check
};

}  // namespace cudalab
