// Runs a lab's suite from the command line: options, checks, timing, report. Exit status
// as in docs/architecture.md.
#pragma once

namespace cudalab {

enum ExitStatus { kAllPassed = 0, kCheckFailed = 1, kUsage = 2, kContextLost = 3, kNoDevice = 4 };

int run_lab(int argc, char** argv);

}  // namespace cudalab
