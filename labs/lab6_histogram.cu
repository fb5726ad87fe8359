// =============================================================================================
//  cudalab · Lab 6 · The shared-memory histogram
// =============================================================================================
//
//  THE IDEA
//  --------
//  A histogram counts how often each value occurs. Here the values are bytes, so there are
//  256 bins, and d_hist[v] ends up holding how many bytes of the input equal v. Many threads
//  count at once, so every increment must be an atomicAdd: a plain d_hist[v]++ is a read, an
//  add and a write, and when two threads do it together both read the old count and one of
//  the two increments is lost.
//
//  WHY NOT JUST atomicAdd(&d_hist[byte], 1)?
//  -----------------------------------------
//  That is correct, and it is the harness's naive kernel. It is slow because all n atomics
//  go to the same 256 counters in global memory. Atomics on one address are done one after
//  another (in the L2 cache), so the more threads hit the same bin, the longer they queue;
//  on skewed data (the spaces of a text, the black pixels of a scan) nearly every thread
//  waits for the same counter.
//
//  The cure is privatization: each block counts into its own copy of the 256 bins, in shared
//  memory, which sits on the multiprocessor and is shared only by the block's own threads.
//  When the block has seen all its bytes, it adds its 256 counts into d_hist: 256 global
//  atomics per block instead of one per byte.
//
//      1. zero the block's shared histogram               (each thread zeroes its bins)
//      2. __syncthreads()                                  (no counting before every bin is 0)
//      3. atomicAdd(&s_hist[byte], 1u) for each of the thread's bytes
//      4. __syncthreads()                                  (every count is in before any is read)
//      5. atomicAdd(&d_hist[bin], s_hist[bin]) for each bin that is not 0
//
//  Both barriers matter. Without the first, a fast thread counts into a bin that a slower
//  thread zeroes afterwards, and the count is lost. Without the second, a bin goes to d_hist
//  before the last thread has counted into it.
//
//  THE GRID-STRIDE LOOP
//  --------------------
//  Step 5 costs 256 atomics per block, so we want few blocks, each counting many bytes: as
//  many blocks as the GPU runs at once, and no more. The runtime tells you how many that is:
//
//      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
//      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histogram_kernel, kThreads, 0);
//
//  and the grid is sms * per_sm blocks (fewer when n is small: a block with no bytes still
//  pays for steps 1 and 5). Each thread then walks the input with the stride of the grid:
//
//      for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
//           i += size_t(blockDim.x) * gridDim.x)
//
//  With T = blockDim.x * gridDim.x threads in the grid, thread 0 of block 0 takes bytes 0, T,
//  2T, ...; at every step a warp reads 32 neighbouring bytes, and the grid sweeps the input
//  front to back. The loop is right for any n and any grid, which is why it is the usual way
//  to write a kernel whose grid is sized by the GPU rather than by the data. (A stride of
//  blockDim.x alone would make every block count the same bytes.)
//
//  WHAT SKEWED DATA DOES
//  ---------------------
//  Atomics from one warp on the same shared-memory address are serialized too. On uniform
//  random bytes the 32 lanes of a warp mostly hit different bins; when every byte is equal,
//  all 32 hit one bin and the warp's atomicAdd takes 32 turns. The checks use both, and the
//  timing measures both; MAKING IT FAST (step 3) shows how the reference avoids the queue.
//
//  THE TASK
//  --------
//  Fill in histogram_kernel (TODO 1-3: steps 1-5 above) and lab6::histogram (TODO 4: clear
//  d_hist, which arrives full of garbage; TODO 5: size the grid from the GPU).
//
//  RUN IT
//  ------
//      make lab6                          build, check, then time your code
//      make lab6 ARGS="--only all_bytes_equal"
//      make lab6 ARGS="--size 1000000"    check and time one size of your choice
//      make lab6 PROFILE=1                after the timing: why it is slow, beside the reference
//      make solution6                     the reference solution, for comparison
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
//  Every count is compared exactly with a CPU histogram of the same bytes. The inputs: n = 1;
//  sizes that are a multiple of nothing (primes); fewer bytes than the grid has threads;
//  uniform random bytes; every byte equal (the worst contention); a few hot bins holding most
//  of the bytes; and sizes past 2^24 on a GPU. A few sizes sit one byte past a multiple of 16
//  (17, 4,097, 2^20 + 3): your byte-by-byte loop passes them without trying, and they are there
//  for the day you load 16 bytes at once (MAKING IT FAST), when the last few bytes need code of
//  their own. d_hist arrives filled with 0xFFFFFFFF, so a forgotten clear shows: every bin
//  comes out one short (0xFFFFFFFF + 1 wraps to 0). "Counted 1,200 bytes of 1,000" means some
//  bytes were counted twice; "900 of 1,000", that some were missed. The timing counts 2^28 bytes
//  (256 MiB, five times the H100's L2 cache) of uniform and of skewed data, and compares with
//  the copy bandwidth, one CPU core, the harness's global-atomics kernel and NVIDIA's CUB
//  (DeviceHistogram::HistogramEven).
//
//  MAKING IT FAST: WHAT THE REFERENCE ADDS
//  ---------------------------------------
//  On an H100, 2^28 uniform bytes: the global-atomics kernel takes 69.1 ms; your privatized
//  kernel 0.396 ms (in tools/measure/bench_steps, whose figures follow); the reference 0.094 ms,
//  2,866 GB/s, 97% of a device-to-device copy
//  and 1.4x faster than CUB (0.133 ms). It gets there in four steps, each one change to the
//  kernel you wrote; tools/measure/bench_steps times each on its own (make bench-steps).
//
//  1. Sixteen bytes per load. A warp of byte loads moves 32 bytes per instruction: 16 load
//     instructions, and 16 trips round the loop, for every 512 bytes, so the kernel is held
//     back by the instructions it issues rather than by memory. Read the input as uint4 (four
//     32-bit words, 16 bytes per thread, 512 per warp instruction) and take the bytes out of
//     each word with shifts: (w >> 8 * b) & 255 is byte b of word w (the GPU is little-endian:
//     byte 0 is the lowest). A uint4 must sit at an address that is a multiple of 16.
//     cudaMalloc's pointers do, but lab6::histogram promises any pointer, so the `head` bytes
//     before the first 16-byte boundary and the last (n - head) % 16 are counted one by one,
//     by 16 threads of block 0. The grid now needs ceil(n / 16 / kThreads) blocks at most.
//     On the H100: 0.126 ms, 2,130 GB/s (from 0.396 ms, 677 GB/s, for byte loads): 3.15x.
//
//  2. Two loads in flight. A load from memory takes several hundred nanoseconds to arrive, and
//     a thread that counts each vector before asking for the next one waits that long every
//     time. Ask for two first, then count both:
//
//         for (; i + stride < n16; i += 2 * stride) {
//           const uint4 a = in16[i], b = in16[i + stride];   // both requests leave now
//           count(a);                                       // b arrives while a is counted
//           count(b);
//         }
//         if (i < n16) count(in16[i]);                      // the odd one out
//
//     The two loads are the grid-stride loop's two next steps, so a warp's loads stay
//     neighbours and the grid still sweeps the input front to back. On the H100: 0.123 ms
//     (1.03x; on skewed bytes 0.107 -> 0.106 ms).
//
//  3. One histogram per lane. Shared memory is 32 banks of 4-byte words; bin v of a plain
//     s_hist lives in bank v % 32, so two lanes counting different bins of the same bank wait
//     for each other too, and lanes counting the same bin queue on it. With 32 copies laid out
//     as s_hist[bin * 32 + lane], lane l always touches bank l and never the address of another
//     lane: a warp's 32 atomics never wait on each other, whatever the data. It costs 32 KiB of
//     shared memory per block (fewer blocks fit on a multiprocessor, which the grid's size from
//     cudaOccupancyMaxActiveBlocksPerMultiprocessor follows by itself), and step 5 first adds
//     the 32 copies of a bin; thread t starts at copy t % 32, so that the warp reading them
//     reads 32 different banks. Uniform bytes: 0.104 ms, 2,584 GB/s (1.18x); skewed: 0.104 ms
//     (1.02x) (CUB:
//     0.112 ms).
//
//  4. Ask for the grid once. The three queries that size the grid cost 0.46 us on the
//     host per call, while the kernel itself runs for about 94 us, and their answer never
//     changes in a process. The reference keeps it in a function-local static, which C++
//     initialises exactly once, on the first call, even with several threads calling:
//
//         static const size_t resident = [] { ...the three queries...; return sms * per_sm; }();
//
//  solutions/lab6_histogram.cu is these four steps, nothing more.
// =============================================================================================

#include <cuda_runtime.h>

#include "cudalab/lab6.h"

constexpr unsigned kThreads = 256;  // threads per block: one bin each when zeroing (kBins = 256)

// Counts in[0, n) into hist (which holds 0s when the kernel starts). Launched with kThreads
// threads per block and any number of blocks: every byte is counted by exactly one thread.
__global__ void histogram_kernel(const unsigned char* in, unsigned* hist, size_t n) {
  __shared__ unsigned s_hist[lab6::kBins];

  // TODO 1: thread t sets s_hist[t] to 0; then __syncthreads().

  // TODO 2: the grid-stride loop: for every i of this thread (see THE GRID-STRIDE LOOP),
  //         atomicAdd(&s_hist[in[i]], 1u).

  // TODO 3: __syncthreads(); then thread t adds s_hist[t] into hist[t] with atomicAdd,
  //         skipping bins this block never saw (a count of 0).
}

void lab6::histogram(const unsigned char* d_in, unsigned* d_hist, size_t n) {
  // TODO 4: d_hist arrives full of garbage and the blocks only add into it: set its kBins
  //         counters to 0 first, with CUDALAB_CHECK(cudaMemset(d_hist, 0, kBins * sizeof(unsigned))).

  // TODO 5: as many blocks as the GPU runs at once (THE GRID-STRIDE LOOP shows the two calls;
  //         cudaGetDevice(&device) gives the device), but no more than ceil(n / kThreads).
  unsigned blocks = 1;

  histogram_kernel<<<blocks, kThreads>>>(d_in, d_hist, n);
  CUDALAB_CHECK_LAUNCH("histogram_kernel");
}
