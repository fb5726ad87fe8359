// Attack: replace the global operator new, which every allocation of the runner would then use.
// expect-exit: 1
// expect-cause: defines_reserved_name
// expect-message: operator new
#include <cstdlib>
#include <new>
#include "cudalab/lab3.h"
void* operator new(size_t bytes) { return std::malloc(bytes ? bytes : 1); }
void operator delete(void* p) noexcept { std::free(p); }
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
