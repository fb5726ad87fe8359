// cudalab CPU backend: the lab's source line of an instruction address (the race detector's and
// the profile build's reports), read with GCC's libbacktrace from the program's own debug lines.
// Not for lab code.
#pragma once
#include <cstdint>
#include <string>

struct backtrace_state;

namespace cudalab_cpu {

struct SourceLine {
  std::string file = "?";
  int line = 0;
  bool own = false;  // in the lab's code, not in the backend's headers or the system's
};
// The line of the instruction just before return address `pc` (a hook's caller): the innermost
// frame, inlined ones included, in the lab's own code; an atomicAdd's access is made inside the
// backend's cuda_runtime.h, and the line that called atomicAdd is the one a student reads.
SourceLine source_line_of(uintptr_t pc);
// libbacktrace's state for the program (nullptr if it has no debug information).
backtrace_state* program_symbols();

}  // namespace cudalab_cpu
