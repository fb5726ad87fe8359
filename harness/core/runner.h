// Runs a lab's suite from the command line: options, checks, timing, report. Exit status
// as in docs/architecture.md.
#pragma once

namespace cudalab {

enum ExitStatus { kAllPassed = 0, kCheckFailed = 1, kUsage = 2, kContextLost = 3, kNoDevice = 4 };

int run_lab(int argc, char** argv);

// Recorded by launch_check.h when the lab file is compiled with CUDALAB_SOURCE_FILE.
const char* note_source_file(const char* path);

}  // namespace cudalab
