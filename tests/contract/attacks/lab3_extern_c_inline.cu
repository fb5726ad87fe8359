// Attack: an `extern "C" inline` function: the compiler's own kind of weak copy, but with a C
// library's name (clock_gettime, which timing code calls).
// expect-exit: 1
// expect-cause: defines_reserved_name
// expect-message: clock_gettime
#include <ctime>
#include "cudalab/lab3.h"
extern "C" inline int clock_gettime(clockid_t, struct timespec* t) noexcept { t->tv_sec = 0; t->tv_nsec = 0; return 0; }
__attribute__((used)) static int (*keep)(clockid_t, timespec*) = clock_gettime;  // the compiler emits its copy
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) {
  timespec t;
  if (keep(CLOCK_MONOTONIC, &t) == 0) nothing<<<1, 1>>>();
}
}  // namespace lab3
