// Not an attack, a slip: the lab function renamed. Told by name, before any link error.
// expect-exit: 1
// expect-cause: missing_lab_function
// expect-message: lab3::multilevel_sum
#include "cudalab/lab3.h"
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum_v2(const float*, float*, float*, size_t) { nothing<<<1, 1>>>(); }
}  // namespace lab3
