// The grader's private verdict channel (owned by grading/; see issue 4 and grading/README.md).
//
// When the grader runs a lab binary it puts the write end of a pipe on some file descriptor
// and names it, with a secret made for that one process, in the environment variable
// CUDALAB_VERDICT_CHANNEL="<fd>:<secret>". The harness takes both before any code of the
// lab file can run (an entry in .preinit_array, which the loader runs before every static
// initializer of the executable), wipes the variable from the process's memory and from
// environ, and marks the descriptor close-on-exec. At the end of the run it writes the JSON
// report to the descriptor in a frame that carries the secret. The grader believes only a
// frame with its secret, and only when there is exactly one.
//
// Without the variable (a student running make lab3) nothing happens.
#pragma once
#include <string>

namespace cudalab {
// Called first thing in main. The channel is already taken by then (see above); this only
// makes sure of it on toolchains that ignore .preinit_array, and leaves argv alone.
void report_channel_init(int& argc, char** argv);
// Whether the grader runs this checker (it handed it a channel).
bool report_channel_open();
// Called once at the end of the run with the full JSON report (the same as --json writes).
void report_channel_send(const std::string& json_report);

// The frame's fixed parts, shared with the grader (grading/grader/verdict_frame.cpp).
inline constexpr const char* kVerdictChannelVariable = "CUDALAB_VERDICT_CHANNEL";
inline constexpr const char* kVerdictFrameBegin = "CUDALAB-VERDICT-1 ";
inline constexpr const char* kVerdictFrameEnd = "CUDALAB-VERDICT-END ";
}  // namespace cudalab
