#include "timing_trace.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>

namespace cudalab {
namespace {
bool g_on = false;
const auto g_start = std::chrono::steady_clock::now();
}  // namespace

void set_timing_trace(bool on) { g_on = on; }
bool timing_trace_on() { return g_on; }

void timing_trace(const char* format, ...) {
  if (!g_on) return;
  char line[400];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
  std::fprintf(stderr, "timing trace: %7.3f s  %s\n", s, line);
}

}  // namespace cudalab
