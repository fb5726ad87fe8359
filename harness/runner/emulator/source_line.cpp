// cudalab CPU backend: instruction addresses to the lab's source lines (see source_line.h).
// Built only where lab code calls hooks that pass their caller's address: the race detector
// and the profile build (the plain build does not link libbacktrace's callers).
#if defined(CUDALAB_CPU_RACE) || defined(CUDALAB_CPU_PROFILE)
#include "source_line.h"

#include <backtrace.h>

#include <cstring>

namespace cudalab_cpu {

backtrace_state* program_symbols() {
  static backtrace_state* state = backtrace_create_state(nullptr, 1, nullptr, nullptr);
  return state;
}

namespace {
int on_frame(void* data, uintptr_t, const char* file, int line, const char*) {
  auto* p = static_cast<SourceLine*>(data);
  if (!file || line <= 0) return 0;
  const bool own = std::strncmp(file, "/usr/", 5) != 0 && !std::strstr(file, "harness/runner/emulator/include");
  if (own || p->line == 0) *p = SourceLine{file, line, own};
  return own;  // non-zero stops the walk
}
}  // namespace

SourceLine source_line_of(uintptr_t pc) {
  SourceLine p;
  if (program_symbols())
    backtrace_pcinfo(
        program_symbols(), pc - 1, on_frame, [](void*, const char*, int) {}, &p);
  return p;
}

}  // namespace cudalab_cpu
#endif
