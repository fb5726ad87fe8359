// Attack: place a function pointer in .preinit_array by hand, so it runs before every
// constructor of the runner.
// expect-exit: 1
// expect-cause: foreign_section
// expect-message: .preinit_array
#include "cudalab/lab3.h"
static void early() {}
__attribute__((section(".preinit_array"), used)) static void (*run_early)() = early;
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
