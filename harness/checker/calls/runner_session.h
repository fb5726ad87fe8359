// The checker's current kernel runner: started on first use, kept while it serves, replaced
// after a failure. run_checks.cpp configures it; lab_call.cpp and timed_call.cpp use it.
#pragma once
#include <memory>
#include <string>

#include "runner_process.h"

namespace cudalab {

void runner_configure(const RunnerConfig& config, int lab);
const RunnerConfig& runner_config();
// The live runner, starting one when there is none. Throws std::runtime_error when none starts.
RunnerProcess& runner();
// Ends the current runner (after a crash, a hang, garbage or a lost context) and returns how it
// had ended ("was killed by signal 11 (...)", or "").
std::string runner_discard();
// Tells the runner to quit, at the end of the run.
void runner_finish();
// Ends the student's processes before the checker times anything of its own (the baselines,
// the ceiling, the floor): the runner is told to quit, given time to, then its whole process
// group is killed and waited for (in the grader the runner's jail empties its cgroup before it
// exits). False when a process of the group outlived SIGKILL for 5 s.
bool end_student_processes();
// Throws std::logic_error naming `what` while a kernel runner is alive: the checker's own
// timings (checker/gpu/timer.cpp) call it, so that none can run beside the student's code.
void require_no_student_process(const std::string& what);

}  // namespace cudalab
