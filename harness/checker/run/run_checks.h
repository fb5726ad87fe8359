// Runs a lab's suite from the command line: options, checks, timing, report. Exit status
// as in docs/architecture.md.
#pragma once
#include "checker_session.h"

namespace cudalab {

enum ExitStatus { kAllPassed = 0, kCheckFailed = 1, kUsage = 2, kContextLost = 3, kNoDevice = 4 };

// The run's state is `session`'s (main makes it): nothing of it is kept in a global.
int run_lab(CheckerSession& session, int argc, char** argv);

}  // namespace cudalab
