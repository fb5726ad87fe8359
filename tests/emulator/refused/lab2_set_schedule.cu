// Attack (issue 16): a tree with no __syncthreads() at all, which the race probe (every check
// run again with threads and blocks in reverse order) fails, and a host function that switches
// the probe off by putting the threads back in order, as the lab-facing headers used to allow.
// They declare no emulator control any more: this file must not compile.
// expect-exit: nonzero
// expect-match: set_schedule.*(is not a member of|was not declared)
#include "cudalab/lab2.h"

constexpr unsigned kThreads = 1024;

__global__ void block_sums(const float* in, float* out, size_t n) {
  __shared__ float s[kThreads];
  const size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  for (unsigned half = kThreads / 2; half > 0; half /= 2)  // no __syncthreads() anywhere
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

void lab2::shared_sum(const float* d_in, float* d_block_sums, float* d_sum, size_t n) {
  cudalab_cpu::set_schedule("in-order");  // the attack
  const unsigned blocks = unsigned((n + kThreads - 1) / kThreads);
  block_sums<<<blocks, kThreads>>>(d_in, d_block_sums, n);
  CUDALAB_CHECK_LAUNCH("block_sums");
  block_sums<<<1, kThreads>>>(d_block_sums, d_sum, blocks);
  CUDALAB_CHECK_LAUNCH("block_sums");
}
