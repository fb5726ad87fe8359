#include "timing_trace.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>

namespace cudalab {
namespace {
bool g_on = false;
}  // namespace

void set_timing_trace(bool on) {
  g_on = on;
  timing_trace("the checker started");
}

void timing_trace(const char* format, ...) {
  if (!g_on) return;
  char line[400];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  // The steady clock's own seconds (since the machine started): the same in every process, so
  // that one run's steps line up with another's.
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  std::fprintf(stderr, "timing trace: %.3f s  %s\n", s, line);
}

}  // namespace cudalab
