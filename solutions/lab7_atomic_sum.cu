// =============================================================================================
//  cudalab · Lab 7 · The grid-stride sum: one atomic per block, then warp shuffles · REFERENCE SOLUTION
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

#include <cstdint>

#include "cudalab/lab7.h"

// The reference goes past the TODOs, as MAKING IT FAST describes: float4 loads, four in
// flight per thread before any is added, and every warp shuffles (one barrier per block).
constexpr unsigned kThreads = 256;  // threads per block (a multiple of 32)
constexpr unsigned kUnroll = 4;     // float4 loads in flight per thread: 64 bytes
constexpr unsigned kWarps = kThreads / 32;

// The sum of v over the 32 lanes of a warp, in lane 0.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void __launch_bounds__(kThreads) sum_kernel(const float* __restrict__ in, float* __restrict__ sum,
                                                       size_t n) {
  // float4 loads need 16-byte alignment: `head` floats (0 to 3) come before the first aligned
  // one, n4 float4s follow, then n - tail floats (0 to 3). Block 0 adds the loose ones.
  const size_t misalign = (reinterpret_cast<uintptr_t>(in) & 15) / sizeof(float);
  const size_t head = misalign ? (4 - misalign < n ? 4 - misalign : n) : 0;
  const float4* in4 = reinterpret_cast<const float4*>(in + head);
  const size_t n4 = (n - head) / 4;
  const size_t tail = head + 4 * n4;

  // Step 1: the grid-stride loop, kUnroll float4s per step, all loaded before any is added.
  // Four independent accumulators (x, y, z, w) keep the chain of additions in a row short.
  const unsigned t = threadIdx.x;
  const size_t stride = size_t(kThreads) * gridDim.x;
  size_t i = size_t(blockIdx.x) * kThreads + t;
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
    float4 v[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) v[u] = in4[i + u * stride];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) {
      acc.x += v[u].x;
      acc.y += v[u].y;
      acc.z += v[u].z;
      acc.w += v[u].w;
    }
  }
  for (; i < n4; i += stride) {
    const float4 v = in4[i];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  float v = (acc.x + acc.y) + (acc.z + acc.w);
  if (blockIdx.x == 0) {
    if (t < head) v += in[t];
    if (tail + t < n) v += in[tail + t];
  }

  // Step 2: each warp shuffles, lane 0 of each stores its warp's sum, warp 0 shuffles those.
  __shared__ float warp_sums[kWarps];
  v = warp_sum(v);
  if (t % 32 == 0) warp_sums[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    v = warp_sum(t < kWarps ? warp_sums[t] : 0.0f);
    if (t == 0) atomicAdd(sum, v);  // step 3: one atomic per block
  }
}

void lab7::atomic_sum(const float* d_in, float* d_sum, size_t n) {
  // d_sum arrives as garbage (NaN); the blocks only add into it.
  CUDALAB_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(float)));

  // As many blocks as run at once, no more than the float4s need (at least one).
  // Blocks resident at once: asked once per process (the answer never changes, and the
  // queries cost more than a small launch).
  static const size_t resident = [] {
    int device = 0, sms = 0, per_sm = 0;
    CUDALAB_CHECK(cudaGetDevice(&device));
    CUDALAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDALAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_kernel, kThreads, 0));
    return size_t(sms) * size_t(per_sm > 0 ? per_sm : 1);
  }();
  const size_t wanted = (n / 4 + kThreads - 1) / kThreads;
  const unsigned blocks = unsigned(wanted == 0 ? 1 : (wanted < resident ? wanted : resident));

  sum_kernel<<<blocks, kThreads>>>(d_in, d_sum, n);
  CUDALAB_CHECK_LAUNCH("sum_kernel");
}
