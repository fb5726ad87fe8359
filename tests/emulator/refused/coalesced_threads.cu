// Aggregated atomics with coalesced_threads(): the group of the lanes that took the branch,
// which the emulator does not track. The kernel must not compile, with a message that says
// what to use instead.
// expect-exit: nonzero
// expect-match: coalesced_threads\(\) cannot run on the CPU backend
// expect-match: BACKEND=cuda
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void count_positive(const int* in, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(count, int(active.size()));
    (void)base;
  }
}
