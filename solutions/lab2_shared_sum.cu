// =============================================================================================
//  cudalab · Lab 2 · The contiguous-offset shared-memory sum · REFERENCE SOLUTION
// =============================================================================================
//
//  THE IDEA
//  --------
//  Lab 1's tree was correct but slow, for three reasons: every step read and wrote global
//  memory (hundreds of cycles away), the `%` test left most threads of each warp idle, and
//  the working threads were spread further apart at every step. This lab fixes all three
//  with two small changes.
//
//  1. Work in shared memory. Each block first copies its 1024 elements into a __shared__
//     array: on-chip memory that the threads of one block share, about as fast as a
//     register file. One read of global memory per element, then the whole tree runs on
//     chip. (Shared memory lives as long as the block, so the block's result must still
//     be written to global memory at the end.)
//
//  2. Pair elements that are far apart, not neighbours. Start with offset = blockDim.x / 2
//     and halve it each step. At each step the first `offset` threads each add the element
//     `offset` places to their right:
//
//       offset = 4:   s0+=s4   s1+=s5   s2+=s6   s3+=s7        threads 0..3 work
//       offset = 2:   s0+=s2   s1+=s3                          threads 0..1 work
//       offset = 1:   s0+=s1                                   thread 0 works
//
//     The threads that work are always a contiguous run 0 .. offset-1. With 1024 threads,
//     the first steps keep whole warps busy and whole warps idle; a warp whose threads
//     are all idle costs almost nothing. Only the last five steps (offset < 32) leave a warp
//     partly idle. In lab 1 every step did.
//
//  WHY __syncthreads() STILL MATTERS
//  ---------------------------------
//  Two barriers, for two different reasons. After the load: thread 0 is about to read
//  s[512], which thread 512 stores; without a barrier thread 0 may read it first. After
//  each step: the next step reads what this step wrote. Every thread of the block must
//  reach each __syncthreads(), so keep them outside any `if`.
//
//  BANK CONFLICTS (WHY CONTIGUOUS IS ALSO KIND TO SHARED MEMORY)
//  -------------------------------------------------------------
//  Shared memory is split into 32 banks; consecutive 4-byte words sit in consecutive
//  banks. A warp's access is served in one go when its 32 threads touch 32 different banks
//  (or the very same word). Here thread t reads s[t] and s[t + offset]: 32 consecutive
//  words, 32 different banks, no conflict. Compare the other obvious fix of lab 1, where
//  thread t works on element 2*s*t: at s = 16, threads 0 and 1 of a warp would touch words
//  0 and 32, which sit in the same bank, and the hardware serves them one after the other.
//
//  TWO LAUNCHES, AND THE LIMIT THAT FOLLOWS
//  ----------------------------------------
//  Threads of different blocks cannot wait for each other inside a kernel, so the block
//  sums are added by a second launch: one block of 1024 threads, one per block sum, running
//  the very same kernel on d_block_sums. One block can add at most 1024 values, so the
//  first launch may have at most 1024 blocks: n <= 1024 x 1024 = 1,048,576 elements.
//  Ask the harness for more (--size 2000000) and it refuses rather than give a wrong sum.
//  Lab 3 removes the limit.
//
//  THE PARTIAL LAST BLOCK
//  ----------------------
//  When n is not a multiple of 1024 the last block has threads without an element. They
//  must still take part in every step and every barrier, so give them something harmless
//  to add: store 0 into their shared slot. Reading in[i] for i >= n reads memory that is not
//  yours (the harness puts NaN there, so you will see it). The second launch meets the same
//  question: it has 1024 threads and usually fewer block sums.
//
//  THE TASK
//  --------
//  Fill in shared_sum_kernel (TODO 1-3) and the second launch in lab2::shared_sum (TODO 4).
//  The first launch is written for you.
//
//  RUN IT
//  ------
//      make lab2                          build, check, then time your code
//      make lab2 ARGS="--only non_power_of_two"
//      make lab2 ARGS="--seed 42"         replay a run with the same inputs
//      make lab2 PROFILE=1                after the timing: why it is slow, beside the reference
//      make solution2                     the reference solution, for comparison
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
//  Each check fills the input with random numbers in [0.5, 1.5), the last one tens of
//  thousands (never zeros, and a forgotten last element shows at any size), and compares
//  two things with a double-precision CPU sum:
//  every block sum your first launch wrote to d_block_sums (a wrong one is reported with its
//  block), and the final sum in d_sum. The tolerance comes from how much float rounding a
//  tree of this depth can add. Sizes go from n = 1 through 1023, 1024, 1025 and odd sizes
//  to the limit, 1,048,576. Before every check the outputs are filled with NaN and fenced
//  with guard values: "never written" means your kernel did not store there, and "wrote
//  past the end" means a thread without a bounds check.
//  The timing sums 256 MiB, five times the H100's L2 cache, as 64 calls of 1,048,576
//  elements each (the most this lab's design allows per call), and sets it next to one CPU
//  core, lab 1's kernel, NVIDIA's CUB library and the GPU's copy bandwidth.
//
//  GOING FURTHER
//  -------------
//  * Have each thread add two elements while loading (in[i] + in[i + blockDim.x]): half
//    the blocks, and the first step of the tree is done during the load.
//  * Once offset < 32, only one warp is working. A warp can exchange registers directly
//    with __shfl_down_sync, no shared memory and no __syncthreads() needed.
//  * The second launch uses one block out of a GPU that can run hundreds at once. Time the
//    two launches separately (nsys profile, or Nsight Compute) and see what it costs.
//  * Lab 3 lifts the 1024 x 1024 limit by repeating the second step as often as needed.
// =============================================================================================

#include <cuda_runtime.h>

#include "cudalab/lab2.h"

// Block b sums in[b*blockDim.x, (b+1)*blockDim.x) (elements at or past n count as 0) and
// writes the sum to out[blockIdx.x]. blockDim.x must be lab2::kBlockSize (a power of two).
__global__ void shared_sum_kernel(const float* in, float* out, size_t n) {
  __shared__ float s[lab2::kBlockSize];
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0.0f;  // threads past the end add a harmless 0
  __syncthreads();                // every load is done before anyone reads a neighbour's slot

  for (unsigned offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) s[tid] += s[tid + offset];
    __syncthreads();  // this step is complete before the next one reads its results
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

void lab2::shared_sum(const float* d_in, float* d_block_sums, float* d_sum, size_t n) {
  const unsigned blocks = unsigned(lab2::num_blocks(n));  // at most kBlockSize: n <= kMaxElements

  // First launch: one block per 1024 elements, each writes its block sum.
  shared_sum_kernel<<<blocks, lab2::kBlockSize>>>(d_in, d_block_sums, n);
  CUDALAB_CHECK_LAUNCH("shared_sum_kernel");

  // Second launch: one block adds the `blocks` block sums (blocks <= kBlockSize threads).
  shared_sum_kernel<<<1, lab2::kBlockSize>>>(d_block_sums, d_sum, blocks);
  CUDALAB_CHECK_LAUNCH("shared_sum_kernel");
}
