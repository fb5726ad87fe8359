// Attack: look up a copy function at run time, by a name no linker sees.
// expect-exit: 1
// expect-cause: calls_outside_contract
// expect-message: dlsym
#include <dlfcn.h>
#include "cudalab/lab3.h"
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) {
  void* copy = dlsym(RTLD_DEFAULT, "cudaMemcpy");
  if (copy) nothing<<<1, 1>>>();
}
}  // namespace lab3
