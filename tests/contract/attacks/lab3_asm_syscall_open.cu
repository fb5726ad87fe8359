// Attack: a raw system call from inline assembly (no name for the link contract to read): open
// a file of the grader's and read the answer there.
// expect-exit: 1
// expect-cause: system_call_instruction
// expect-message: a system-call instruction
// backends: cuda (the CPU backend does not compile assembly at all)
#include "cudalab/lab3.h"
__global__ void sum_kernel(const float* in, float* out, size_t n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0;
    for (size_t i = 0; i < n; ++i) s += in[i];
    *out = s;
  }
}
static long raw_openat(const char* path) {
  long ret;
  asm volatile("syscall" : "=a"(ret) : "a"(257L), "D"(-100L), "S"(path), "d"(0L) : "rcx", "r11", "memory");
  return ret;
}
namespace lab3 {
void multilevel_sum(const float* in, float* scratch, float* sum, size_t n) {
  (void)scratch;
  raw_openat("/etc/hostname");
  sum_kernel<<<1, 1>>>(in, sum, n);
}
}  // namespace lab3
