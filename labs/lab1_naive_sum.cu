// =============================================================================================
//  cudalab · Lab 1 · The naive interleaved sum
// =============================================================================================
//
//  THE IDEA
//  --------
//  Adding up n numbers on one CPU core takes n - 1 additions, one after another: each needs
//  the previous result. A GPU has tens of thousands of threads, so we change the order of
//  the additions. Pair the numbers up and add each pair at the same time: n/2 additions,
//  all independent. Pair up the results and repeat. After log2(n) rounds one number is left.
//  That shape is a tree, and it is the heart of every parallel reduction.
//
//  This lab builds the simplest tree there is, in global memory, one tree per block:
//
//      step s = 1:   x0+x1   .   x2+x3   .   x4+x5   .   x6+x7   .      threads 0, 2, 4, 6 work
//      step s = 2:   x0..x3  .   .   .   x4..x7  .   .   .              threads 0, 4 work
//      step s = 4:   x0..x7                                             thread 0 works
//
//  At step s, thread t works when t % (2*s) == 0, and adds the element s places to its right
//  into its own: data[i] += data[i + s]. Element 0 of the block ends up holding the block's
//  sum, thread 0 writes it out, and the host adds the per-block sums.
//
//  WHY __syncthreads() BETWEEN STEPS
//  ---------------------------------
//  At step s = 2, thread 0 reads data[2], which thread 2 wrote at step s = 1. Threads do not
//  run in lockstep across a block: without a barrier, thread 0 may read data[2] before
//  thread 2 has stored its sum, and the answer changes from run to run. __syncthreads()
//  makes every thread of the block wait until all have finished the step. It must be
//  reached by every thread of the block, so put it outside the `if`.
//
//  WHAT IT COSTS: DIVERGENCE AND STRIDES
//  -------------------------------------
//  A warp is 32 threads that issue instructions together. With the `%` test, at step s = 1
//  half the threads of each warp work and half idle; at s = 16 only one thread in 32 works,
//  yet the warp still takes the time of a full one. The active threads also read elements
//  2*s apart, so a warp's loads are spread over many memory segments. This kernel is
//  correct and slow on purpose: labs 2 and 3 fix both problems.
//
//  THE PARTIAL LAST BLOCK
//  ----------------------
//  n is rarely a multiple of the block size. In the last block, some threads own no
//  element, and an element's partner s places away may lie past n. Reading it reads memory
//  that is not yours (the harness fills it with NaN, so you will see it). Only add a
//  partner that exists: i + s < n.
//
//  THE TASK
//  --------
//  Fill in interleaved_sum_kernel below (the TODOs). The host function lab1::block_sums is
//  written for you: one block of lab1::kBlockSize (1024) threads per 1024 elements.
//
//  RUN IT
//  ------
//      make lab1                      build and check your kernel, then time it
//      make lab1 ARGS="--seed 42"     replay a run with the same inputs
//      make lab1 ARGS="--only partial_last_block"
//      make lab1 PROFILE=1                after the timing: why it is slow, beside the reference
//
//  READING PROFILE=1
//  -----------------
//  Its first sentence names what limits your kernel and where: "X is the limiter, at
//  labs/FILE.cu:LINE: ...", with the figure that shows it. The next says the same figure for
//  the reference solution, the one after what to change; a last one lists anything else that is
//  worse than the reference. The limiters: uncoalesced accesses, bank conflicts, divergent
//  warps, atomics on one address, too few blocks, narrow loads, low occupancy, barriers and, in
//  a matrix product, data reuse (values loaded per multiply-add). "Estimated": the CPU backend
//  counted every access your threads made and judged them for an H100; "measured": Nsight
//  Compute on a GPU. "Nothing stands out": your kernel works as the reference's does, and the
//  times above say the rest. Fix the first limiter, then run it again.
//
//  WHAT THE CHECKS MEAN
//  --------------------
//  Each check draws random inputs (never zeros), runs your kernel and compares every block
//  sum with a double-precision CPU sum, within a tolerance derived from float rounding
//  (proportional to the tree's depth). Sizes: one element, one element past a full block,
//  exact multiples, partial last blocks, millions. A failure names the block and the
//  pattern ("only block 3 is wrong", "the output was never written").
//  The timing shows your kernel next to the end-to-end time, which includes copying the
//  input from the host to the GPU: at this size the copy over PCIe takes far longer than
//  the sum itself. Keeping data on the GPU between kernels is most of the game.
//
//  GOING FURTHER
//  -------------
//  * Replace `tid % (2*s) == 0` by a contiguous index: let thread t handle element 2*s*t.
//    Fewer warps diverge. (Lab 2 does better still, with shared memory.)
//  * Why does the harness give your kernel its own copy of the input each time? (It is
//    summed in place: the input is destroyed.)
//  * Run with CHECK=racecheck after removing the __syncthreads(): the tool names the race.
// =============================================================================================

#include <cuda_runtime.h>

#include "cudalab/lab1.h"

// Sums this block's kBlockSize elements of data in place and writes the block's sum to
// block_sums[blockIdx.x].
__global__ void interleaved_sum_kernel(float* data, float* block_sums, size_t n) {
  // TODO 1: the index of this thread's element: the block's first element plus threadIdx.x.
  //         (Use size_t. Here n is at most 2^30, so an int would do, but size_t is the habit
  //         that keeps index arithmetic safe as sizes grow: lab 3 goes up to 2^31.)

  // TODO 2: for s = 1, 2, 4, ... while s < blockDim.x:
  //           if threadIdx.x % (2*s) == 0 and the partner i + s is inside the array (< n),
  //             data[i] += data[i + s];
  //           __syncthreads();   (every thread, outside the if)

  // TODO 3: thread 0 writes the block's sum, data[first element of the block], to
  //         block_sums[blockIdx.x].
}

void lab1::block_sums(float* d_data, float* d_block_sums, size_t n) {
  unsigned blocks = unsigned(lab1::num_blocks(n));
  interleaved_sum_kernel<<<blocks, lab1::kBlockSize>>>(d_data, d_block_sums, n);
  CUDALAB_CHECK_LAUNCH("interleaved_sum_kernel");
}
