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

}  // namespace cudalab
