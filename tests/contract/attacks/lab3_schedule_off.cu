// Attack: switch off the CPU backend's race probe (its reverse-order re-run) from the lab file,
// so a tree with no __syncthreads() passes. The emulator's controls are the checker's alone.
// expect-exit: 1
// expect-cause: calls_outside_contract
// expect-message: cudalab_cpu::set_schedule
#include "cudalab/lab3.h"
namespace cudalab_cpu {
bool set_schedule(const char* spec);
}
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) {
  cudalab_cpu::set_schedule("forward");
  nothing<<<1, 1>>>();
}
}  // namespace lab3
