// =============================================================================================
//  cudalab · Lab 7 · The grid-stride sum: one atomic per block, then warp shuffles
// =============================================================================================
//
//  THE IDEA
//  --------
//  Lab 3 summed n floats in levels: every level a launch, every block one partial sum, until a
//  single block was left. Here there is one launch and no partial sums in memory at all:
//
//      1. each thread adds a grid-stride run of elements in a register
//      2. the block adds its threads' values (a tree in shared memory, then warp shuffles)
//      3. thread 0 of each block does atomicAdd(d_sum, block_total)
//
//  The grid is sized by the GPU, not by n (as many blocks as run at once, the way lab 6 does
//  it), so the loop of step 1 does most of the work: with 2^26 floats and 132 x 8 blocks of
//  256 threads, each thread adds about 250 of them before any thread talks to another.
//  Step 3 leaves a few hundred atomics, where one atomic per element would queue n of them
//  on one address.
//
//  d_sum arrives holding NaN (the harness's garbage), and atomicAdd only adds. Set it to 0
//  before the kernel runs (cudaMemset in the host function: the launch that follows on the
//  same stream starts after it); NaN + anything is NaN.
//
//  THE TREE, AND ITS TWO BARRIERS
//  ------------------------------
//  The first version of step 2 keeps every thread busy at every step: thread t reads its own
//  slot and the slot `offset` places after it, and writes the sum into its own slot.
//
//      for (unsigned offset = kThreads / 2; offset > 0; offset /= 2) {
//        float v = s[t] + (t + offset < kThreads ? s[t + offset] : 0.0f);   // read
//        __syncthreads();                                                  // barrier 1
//        s[t] = v;                                                         // write
//        __syncthreads();                                                  // barrier 2
//      }
//
//  Why two barriers? Slot t + offset is read by thread t and written by thread t + offset in
//  the same step. Barrier 1 makes every thread finish reading before any thread writes;
//  without it, thread t may read a slot its owner has already overwritten with a larger sum,
//  and count those elements twice. Barrier 2 makes every write land before the next step
//  reads; without it, thread t reads a slot its owner has not written yet. After the last
//  step s[0] holds the block's total. (Lab 2's form, if (t < offset) s[t] += s[t + offset],
//  needs only barrier 2: its readers and writers work on different halves.)
//
//  THE LAST FIVE STEPS, WITH SHUFFLES
//  ----------------------------------
//  Once offset is below 32, every slot that still matters belongs to warp 0, and its 32 lanes
//  can trade registers directly: __shfl_down_sync(mask, v, offset) returns the v of the lane
//  `offset` places higher (a lane past 31 gets its own v back). No shared memory and no
//  barrier: the 32 lanes of a warp execute the shuffle together, each reading before any
//  writes, which is exactly what the two barriers were for.
//
//      if (t < 32) {                                   // warp 0, all 32 lanes
//        float v = s[t] + s[t + 32];                   // the step with offset 32
//        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
//        if (t == 0) atomicAdd(d_sum, v);              // lane 0 holds the block's total
//      }
//
//  The mask names the lanes that take part, one bit per lane: 0xffffffff is all 32, and every
//  lane it names must reach the same shuffle. Put it inside if (t < 16) and lanes 16-31 never
//  arrive: the result is undefined on a GPU (a hang, or a wrong sum), and the CPU backend
//  stops and says which lanes it waited for.
//
//  WHAT ATOMICS DO TO THE LAST BITS
//  --------------------------------
//  The blocks' atomicAdds land in whatever order the blocks finish, and float addition is not
//  associative: (a + b) + c and a + (b + c) can differ in the last bit. So the sum changes
//  slightly from run to run, which is not a bug. The checks allow it: the tolerance is the
//  float rounding bound for your launch's longest possible chain of additions (the elements a
//  thread adds in a row, the steps of the block's tree, then one addition per block into
//  d_sum, in any order), times the sum of |x|.
//
//  THE TASK
//  --------
//  TODO 1-3 in sum_kernel (steps 1-3, with the two-barrier tree), TODO 4 in lab7::atomic_sum
//  (zero d_sum, size the grid). Check it; then TODO 5: the last five steps with shuffles.
//
//  RUN IT
//  ------
//      make lab7                          build, check, then time your code
//      make lab7 ARGS="--only warp_plus_one"
//      make lab7 ARGS="--size 3000000"    check and time one size of your choice
//      make lab7 PROFILE=1                after the timing: why it is slow, beside the reference
//      make solution7                     the reference solution, for comparison
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
//  As in lab 3: random numbers in [0.5, 1.5) whose last element is large (so the element a
//  bound leaves out shows through the tolerance), compared with a double-precision CPU sum.
//  The sizes sit around the warp (32), the block (256, 1024), the grid (a whole number of
//  grid-strides, plus and minus one) and 2^30; one input is all negative and one mixes signs.
//  d_sum arrives as NaN: a result of NaN means it was not set to 0, or an element past the
//  end was added. The timing sums 2^26 floats (256 MiB) and compares with the copy bandwidth,
//  one CPU core, lab 1's naive kernel and CUB's DeviceReduce::Sum.
//
//  MAKING IT FAST: WHAT THE REFERENCE ADDS
//  ---------------------------------------
//  On an H100, 2^26 floats: lab 1's naive kernel takes 1.095 ms; your two-barrier kernel
//  0.133 ms, with TODO 5's shuffles 0.133 ms (tools/measure/bench_steps); the reference 0.090 ms,
//  2,974 GB/s,
//  a little over the device-to-device copy (which reads and writes; this sum only reads) and
//  1.13x faster than CUB (0.102 ms). (An earlier run on 31.4 M floats gives the idea:
//  grid-stride + shared tree + one atomic per block 0.062 ms, 68% of a copy; float4 loads +
//  warp shuffles 0.047 ms, 88.5%.) Four steps, each one change to your kernel, each timed on
//  its own by tools/measure/bench_steps (make bench-steps):
//
//  1. Shuffle in every warp, not just the last. Each warp sums its 32 values with shuffles,
//     lane 0 of each writes its warp's sum to shared memory, one barrier, then warp 0 shuffles
//     those eight sums. One barrier per block instead of five (one after the stores, two for
//     each of the tree's steps 128 and 64; seventeen without TODO 5), and shared memory carries
//     eight words instead of 256. On the H100: 0.133 ms, no faster (1.00x): the barriers were not
//     what held this kernel back. The loads were, as the next step shows.
//
//  2. float4 loads. One instruction per thread then moves 16 bytes, 512 per warp: a quarter of
//     the load instructions and of the loop's steps for the same bytes. A float4 must sit at a
//     multiple of 16 bytes: the `head` floats before the first such address (none for
//     cudaMalloc's pointers, but the contract promises any pointer) and the (n - head) % 4
//     after the last whole float4 are added by block 0, one by one, as lab 6's loose bytes are.
//     Keep the running sum a float4 too (acc.x += v.x, acc.y += v.y, ...): four independent
//     chains of additions, so four can be under way at once where one chain allows one, and
//     each chain is a quarter as long (so is its rounding). The grid needs
//     ceil(n / 4 / kThreads) blocks at most. On the H100: 0.101 ms, 2,666 GB/s: 1.32x.
//
//  3. Four loads in flight. Memory answers a load several hundred nanoseconds after it is
//     asked; a thread that adds each float4 before loading the next waits that long every
//     step. Load four (the next four steps of the grid-stride loop) into an array, then add
//     them:
//
//         float4 v[4];
//         for (u = 0; u < 4; ++u) v[u] = in4[i + u * stride];     // four requests leave at once
//         for (u = 0; u < 4; ++u) acc.x += v[u].x, acc.y += v[u].y, ...;
//
//     and finish with a plain loop for the last few float4s, fewer than four strides' worth.
//     On the H100 in tools/measure/bench_steps: 0.101 ms again (1.00x): float4 loads already keep
//     enough bytes in flight there; the lab's own timing, with fresh inputs, gives the reference
//     0.090 ms.
//
//  4. Ask for the grid once. cudaGetDevice, cudaDeviceGetAttribute and
//     cudaOccupancyMaxActiveBlocksPerMultiprocessor cost 0.46 us on the host per call (the
//     kernel runs for about 90 us) and always give the same answer. A function-local static,
//     which C++ initialises once, on the first call, keeps it:
//
//         static const size_t resident = [] { ...the three queries...; return sms * per_sm; }();
//
//  solutions/lab7_atomic_sum.cu is these four steps, nothing more.
// =============================================================================================

#include <cuda_runtime.h>

#include "cudalab/lab7.h"

constexpr unsigned kThreads = 256;  // threads per block (a power of two, at least 64)

// Adds in[0, n) into *sum (which holds 0 when the kernel starts). Launched with kThreads
// threads per block and any number of blocks.
__global__ void sum_kernel(const float* in, float* sum, size_t n) {
  __shared__ float s[kThreads];
  const unsigned t = threadIdx.x;

  // TODO 1: step 1, a grid-stride loop (lab 6 has one) adding this thread's elements into a
  //         float that starts at 0. Store it in s[t], then __syncthreads().
  (void)in;
  (void)n;

  // TODO 2: step 2, the tree with two barriers (THE TREE, AND ITS TWO BARRIERS), for offset =
  //         kThreads / 2 down to 1.
  //         TODO 5, once everything passes: stop the loop at offset 32 and finish with
  //         warp 0's shuffles instead (THE LAST FIVE STEPS).

  // TODO 3: step 3: thread 0 adds s[0] into *sum with atomicAdd.
  (void)t;
  (void)sum;
}

void lab7::atomic_sum(const float* d_in, float* d_sum, size_t n) {
  // TODO 4: set d_sum[0] to 0 (CUDALAB_CHECK(cudaMemset(...))), and size the grid as lab 6
  //         does: as many blocks as the GPU runs at once, no more than ceil(n / kThreads).
  unsigned blocks = 1;

  sum_kernel<<<blocks, kThreads>>>(d_in, d_sum, n);
  CUDALAB_CHECK_LAUNCH("sum_kernel");
}
