// Attack: a weak definition, which a linker keeps when nothing else defines the name and which
// can stand in for a library's function.
// expect-exit: 1
// expect-cause: weak_definition
// expect-message: gettimeofday
#include "cudalab/lab3.h"
struct timeval;
extern "C" __attribute__((weak)) int gettimeofday(struct timeval*, void*) { return 0; }
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
