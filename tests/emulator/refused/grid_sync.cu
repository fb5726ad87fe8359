// A kernel that syncs the whole grid (a sum in one launch: every block writes its partial sum,
// grid.sync(), block 0 adds them). The CPU backend cannot wait for every block at once: the
// kernel must not compile, with a message that says why and what to do. (Including the header
// and this_thread_block() compile: the other kernel here is fine.)
// expect-exit: nonzero
// expect-match: a grid-wide sync cannot run on the CPU backend
// expect-match: run on a GPU with BACKEND=cuda, or split the kernel into two launches
#include <cooperative_groups.h>

#include "cudalab/lab3.h"

namespace cg = cooperative_groups;

__global__ void fine(float* out) {
  cg::thread_block block = cg::this_thread_block();
  block.sync();
  if (block.thread_rank() == 0) out[blockIdx.x] = 0.0f;
}

__global__ void one_launch_sum(const float* in, float* partial, float* sum, size_t n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float s[256];
  size_t i = grid.thread_rank();
  s[block.thread_rank()] = i < n ? in[i] : 0.0f;
  block.sync();
  for (unsigned half = 128; half > 0; half /= 2) {
    if (block.thread_rank() < half) s[block.thread_rank()] += s[block.thread_rank() + half];
    block.sync();
  }
  if (block.thread_rank() == 0) partial[blockIdx.x] = s[0];
  grid.sync();  // refused on the CPU backend
  if (grid.thread_rank() == 0) {
    float total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    *sum = total;
  }
}

void lab3::multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  unsigned blocks = unsigned((n + 255) / 256);
  fine<<<blocks, 256>>>(d_scratch);
  one_launch_sum<<<blocks, 256>>>(d_in, d_scratch, d_sum, n);
}
