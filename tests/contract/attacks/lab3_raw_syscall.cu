// Attack: talk to the operating system directly (here, write to the runner's reply socket).
// expect-exit: 1
// expect-cause: calls_outside_contract
// expect-message: syscall
#include <sys/syscall.h>
#include <unistd.h>
#include "cudalab/lab3.h"
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float*, float*, float*, size_t) {
  syscall(SYS_write, 3, "frame", 5);
  nothing<<<1, 1>>>();
}
}  // namespace lab3
