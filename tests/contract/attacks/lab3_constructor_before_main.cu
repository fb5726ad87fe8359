// Attack: run code before the harness's main (a constructor that allocates and keeps device
// memory of its own, or hooks anything else): no code of the file's own runs before main.
// expect-exit: 1
// expect-cause: runs_before_main
// expect-message: cudaMalloc
#include "cudalab/lab3.h"
static float* stash = nullptr;
__attribute__((constructor)) static void early() { cudaMalloc(&stash, 1 << 20); }
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
