// =============================================================================================
//  cudalab · Lab 3 · The multi-level sum, with no size limit
// =============================================================================================
//
//  THE IDEA
//  --------
//  Lab 2 summed in two launches: many blocks, each writing one partial sum, then a single
//  block adding the partials. That stops at 1024 x 1024 elements, because one block can
//  only add as many partials as it has threads.
//
//  The way out is to notice that the second launch is the same problem as the first, only
//  smaller. So repeat it. Each launch (a "level") turns m values into blocks_for(m) partial
//  sums, and the next level sums those, until a level runs as a single block and writes
//  the answer:
//
//      level 1:  n = 3,000,000 inputs   ->  2,930 partial sums     (2,930 blocks)
//      level 2:  2,930 partial sums     ->  3 partial sums         (3 blocks)
//      level 3:  3 partial sums         ->  the sum, in d_sum      (1 block)
//
//  With B elements per block, L levels handle up to B^L elements: with B = 1024 that is
//  2^20 for two levels, 2^30 for three, and a fourth covers everything a GPU can hold. The
//  loop needs no formula for the number of levels: it runs until one block is enough.
//
//  WHERE THE PARTIAL SUMS GO
//  -------------------------
//  The harness hands you d_scratch, room for lab3::scratch_elements(n) floats. A level
//  reads its input and writes its output at the same time, in no particular order across
//  blocks, so the two must not overlap. Alternate between two regions of d_scratch: level
//  1 writes region A, level 2 reads A and writes B, level 3 reads B and writes A again
//  (nobody needs level 1's partials by then). The level that runs as one block writes
//  d_sum instead. Region A needs blocks_for(n) floats; every later level is smaller.
//  d_scratch is not cleared for you: the harness fills it with NaN, so a level that reads
//  a partial sum nobody wrote will show it.
//
//  EACH THREAD ADDS SEVERAL ELEMENTS FIRST
//  ---------------------------------------
//  Lab 2 gave each thread one element, so half the threads were idle after the first step
//  of the tree. Here each of the kThreads = 256 threads first adds kItemsPerThread = 4
//  elements in a register, then the block runs the tree on 256 values. The elements of
//  thread t are t, t + 256, t + 512, t + 768 (counted from the block's first element):
//  at every step the 32 threads of a warp read 32 neighbouring floats, which the memory
//  system serves as one wide transaction ("coalesced"). A thread reading 4 neighbouring
//  floats of its own would make each warp's load touch memory 4 times wider than it uses.
//  So a block covers kPerBlock = 256 x 4 = 1024 elements, and every element at or past n
//  counts as 0, exactly as in lab 2.
//
//  MAKING IT FAST: THE BANDWIDTH TARGET
//  ------------------------------------
//  A sum reads each float once and does one addition with it. The GPU can add far faster
//  than memory can deliver, so the speed limit is memory bandwidth: the best possible time
//  is the time to read n floats. The harness measures that limit in the same run (a
//  device-to-device copy) and reports your GB/s as a fraction of it. Two things stand
//  between a correct kernel and that limit:
//  * Bytes in flight. A load takes hundreds of nanoseconds to return, and the GPU only
//    reaches full bandwidth with many loads outstanding at once. Issue all of a thread's
//    loads before using any of them (the compiler can, for a loop with a fixed count and
//    no branch around each load: kItemsPerThread is a constant for that reason), and make
//    each load wide: a float4 load fetches 16 bytes in one instruction.
//  * The end of the tree. Once fewer than 32 values are left, a single warp works and
//    every step still waits at a barrier. Threads of one warp can pass values between
//    registers with __shfl_down_sync, with no shared memory and no __syncthreads().
//  The reference solution does both (8 float4 loads per thread, a shuffle tree in each
//  warp); the kit's bar for it is half of the copy bandwidth or more. Get your version
//  right first, then see "going further".
//
//  THE TASK
//  --------
//  Fill in reduce_level_kernel (TODO 1-3) and turn lab3::multilevel_sum's single launch
//  into the loop over levels (TODO 4). Until TODO 4 is done, only n <= 1024 can pass.
//
//  RUN IT
//  ------
//      make lab3                          build, check, then time your code
//      make lab3 ARGS="--only b1024_squared_plus_one"
//      make lab3 ARGS="--size 3000000"    check and time one size of your choice
//      make lab3 ARGS="--seed 42"         replay a run with the same inputs
//      make lab3 PROFILE=1                after the timing: why it is slow, beside the reference
//      make solution3                     the reference solution, for comparison
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
//  Each check sums random numbers in [0.5, 1.5), the last one tens of thousands (never
//  zeros, and the element that needs one more block or level is too large to hide inside
//  the rounding tolerance), and compares your d_sum with a double-precision CPU sum, within
//  a tolerance that grows with the depth of the tree. The sizes sit on both sides of the
//  places where one more block, or one more level, is needed, for B = 256, 512, 1024, 2048
//  and 8192 elements per block: B - 1 and B + 1, B^2 - 1 and B^2 + 1, B^3 + 1 where that
//  fits, and 2^30 = 1024^3 elements; a check's id says which, as in b1024_squared_plus_one.
//  Tiny sizes and sizes that are not a multiple of 4 (for float4 loads) are there too. A
//  wrong sum is explained when it can be: "the sum was never written", "equals the sum of
//  the first 1,024 elements", "off by exactly one block". d_sum and d_scratch are fenced
//  with guard values, so writing past their end is reported even when the sum comes out
//  right. The timing sums 2^26 floats (256 MiB, five times the H100's L2 cache; --size
//  changes it) and shows your GB/s next to the copy bandwidth, one CPU core, lab 1's kernel
//  and NVIDIA's CUB library.
//
//  GOING FURTHER
//  -------------
//  * Load float4s: reinterpret_cast<const float4*>(in) is 16-byte aligned when `in` is
//    (cudaMalloc's pointers are, and so is d_scratch plus a multiple of 4 floats). The last
//    n % 4 elements then need a plain float load of their own.
//  * Replace the last five steps of the tree by __shfl_down_sync within each warp, then
//    one warp adds the 8 warp sums.
//  * A fixed grid of about as many blocks as the GPU runs at once, each block looping over
//    the input with a stride of the whole grid ("grid-stride loop"), makes level 1 leave
//    only a few hundred partial sums: the other levels then cost one small launch.
//  * Compare with atomicAdd(d_sum, block_sum): one level, but the order of the additions,
//    and so the rounding of the result, changes from run to run.
//    Keep that chain of additions short (a grid-stride loop, so only a few hundred blocks
//    add to d_sum): one atomicAdd per 1024 elements is 2^20 float additions in a row at
//    2^30, and their rounding can exceed the tolerance of the largest check.
// =============================================================================================

#include <cuda_runtime.h>

#include "cudalab/lab3.h"

constexpr unsigned kThreads = 256;        // threads per block (a power of two)
constexpr unsigned kItemsPerThread = 4;   // elements each thread adds before the tree
constexpr size_t kPerBlock = size_t(kThreads) * kItemsPerThread;  // elements per block: 1024

// How many blocks (and so partial sums) a level over m values has.
static size_t blocks_for(size_t m) { return (m + kPerBlock - 1) / kPerBlock; }

// Block b sums in[b*kPerBlock, (b+1)*kPerBlock) (elements at or past n count as 0) and writes
// the sum to out[blockIdx.x]. Launched with kThreads threads per block.
__global__ void reduce_level_kernel(const float* in, float* out, size_t n) {
  // TODO 1: each thread adds its kItemsPerThread elements into a float, starting from 0:
  //           first = blockIdx.x * kPerBlock + threadIdx.x      (size_t: int overflows near 2^31)
  //           elements first + k * kThreads for k = 0 .. kItemsPerThread-1, those < n.

  // TODO 2: the block's tree, as in lab 2: each thread stores its float in
  //           __shared__ float s[kThreads];
  //         then __syncthreads(), then offset = kThreads / 2, /2, ... > 0 with a
  //         __syncthreads() after every step.

  // TODO 3: thread 0 writes the block's sum, s[0], to out[blockIdx.x].
}

void lab3::multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  // Level 1, written for you. When one block is enough, it writes the answer itself.
  const size_t blocks = blocks_for(n);
  float* out = blocks == 1 ? d_sum : d_scratch;
  reduce_level_kernel<<<unsigned(blocks), kThreads>>>(d_in, out, n);
  CUDALAB_CHECK_LAUNCH("reduce_level_kernel");

  // TODO 4: while the level just launched had more than one block, launch another level:
  //           its input is the previous level's output, its n the previous level's number
  //           of blocks; its output alternates between two regions of d_scratch, region A
  //           at d_scratch and region B at d_scratch + blocks_for(n), except that the
  //           level with a single block writes d_sum. CUDALAB_CHECK_LAUNCH after each.
  //         The number of blocks shrinks at every level, so the loop always ends.
}
