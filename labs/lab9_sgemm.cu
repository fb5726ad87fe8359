// =============================================================================================
//  cudalab · Lab 9 · SGEMM: register blocking toward cuBLAS
// =============================================================================================
//
//  THE IDEA
//  --------
//  Lab 5's product again: C = A B in FP32, with A of M x K, B of K x N and C of M x N, all
//  row-major, any sizes. Lab 5's tiled kernel is right and slow: on the H100 it runs at
//  17.1% of cuBLAS's SGEMM. This lab climbs the ladder that the best-known write-ups climb
//  (Simon Boehm's "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance",
//  CUTLASS's "Efficient GEMM in CUDA"), one rung at a time. Each rung below says what limits
//  the one before it, what it changes, and what it measured at 4096 x 4096 x 4096 (rungs 0 to 5
//  on an H100, rungs 7 and 8 on an H200, marked *):
//
//      rung                                                    TFLOP/s    of cuBLAS
//      0  naive: a thread per element of C                     4.39       8.5%
//      1  shared-memory tiles, 32 x 32 (lab 5)                 8.86       17.1%
//      2  1-D register blocking: 8 elements per thread         17.2       33.2%
//      3  2-D register blocking: an 8 x 8 patch per thread     16.6       32.2%
//      4  float4 loads, A transposed in shared memory          36.1       69.7%
//      5  warp tiles, two shared-memory stages                 37.5       72.5%
//      6  64 x 64 warp tiles, 16 x 8 per thread, 128 threads   (measured: see README table)
//      7  B copied by cp.async                                 44.46*     86.8%*
//      8  128 x 256 block tile, BK 16, 256 threads (reference) 47.12*     91.7%*
//         cuBLAS SGEMM (H100)                                  51.7       100%
//
//  All of it FP32 on the CUDA cores: cuBLAS runs with CUBLAS_DEFAULT_MATH, which keeps SGEMM
//  in FP32 (TF32 tensor cores only with CUBLAS_TF32_TENSOR_OP_MATH), so it is the fair
//  yardstick for an FP32 kernel. `make lab9` prints this table for your own GPU: its timing
//  runs rungs 0 to 4 (the harness's kernels, harness/baselines/product.cu) and
//  cuBLAS beside your kernel. The figures for rungs 0 to 5 are one such run, of rung 5's solution
//  (make solution9 ARGS="--seed 2026") on an NVIDIA H100 80GB HBM3 (SXM, 132 SMs, CUDA 13.0):
//  medians of 20 runs, the L2 cache flushed before each; rungs 6 and 7 were timed by
//  tools/gpu/gpu_sgemm_search.sh, each step alone. * On an NVIDIA H200: rung 7 by the same
//  `make solution9` (44.46 TFLOP/s against cuBLAS's 51.23), rung 8 by the search
//  (tools/gpu/gpu_sgemm_search.sh, the same method as its other rows).
//
//  THE BUDGET: WHAT FEEDS A MULTIPLY-ADD
//  -------------------------------------
//  Each SM of the H100 (132 of them) does 128 FP32 fused multiply-adds (FMA) per clock, four
//  warp instructions: about 67 TFLOP/s at the 1.98 GHz boost clock. To keep them busy every
//  level of memory must deliver the FMAs' operands fast enough:
//    * shared memory answers one warp-wide request per clock: 32 words, 128 bytes;
//    * global memory (HBM, 3.35 TB/s) gives each SM about 13 bytes per clock, three floats;
//      the 50 MB L2 cache in front of it a few times more.
//  So the question at every level is reuse: how many FMAs does each word fetched from it feed?
//  For a block that computes a BM x BN tile of C, a word brought from global memory feeds
//  BM BN / (BM + BN) FMAs (a slice of k brings BM + BN words for BM BN FMAs). For a thread
//  that computes a TM x TN patch of C, a word read from shared memory feeds TM TN / (TM + TN).
//  The ladder raises both.
//
//  RUNG 0: NAIVE
//  -------------
//  A thread per element of C, walking row i of A and column j of B in global memory: two
//  loads per FMA. The caches catch most of them (a warp's 32 threads read the same A[i][k]),
//  but the kernel spends its life waiting for memory.
//
//  RUNG 1: SHARED-MEMORY TILES (LAB 5)
//  -----------------------------------
//  A block stages 32 x 32 tiles of A and B in shared memory: each word from global memory
//  now feeds 16 FMAs. But each FMA reads its two operands from shared memory (As[ty][k] is
//  the same word for the whole warp, Bs[k][tx] a word per thread): two shared-memory requests
//  per warp FMA instruction, when the SM could issue four FMA instructions per clock and
//  shared memory answers one request. Shared memory is the wall.
//
//  RUNG 2: 1-D REGISTER BLOCKING
//  -----------------------------
//  Reuse from registers. Let each thread compute TM = 8 elements of a column of C: for each
//  k it reads Bs[k][col] ONCE into a register and uses it for 8 FMAs, with the 8 values
//  As[row .. row + 7][k] (the same for the whole warp: broadcasts). 9 shared reads per 8 FMAs
//  instead of 16. Block tiles of 64 x 64 (a global word feeds 32 FMAs), slices of BK = 8
//  values of k, 512 threads.
//
//  RUNG 3: 2-D REGISTER BLOCKING
//  -----------------------------
//  Each thread an 8 x 8 patch of C. For each k: 8 values of A (a column of the A tile) and 8
//  of B (a row of the B tile) into registers, then all 64 products, an outer product: 16
//  shared reads feed 64 FMAs, four per word. Block tiles of 128 x 128 (a global word feeds 64
//  FMAs), slices of 8, 256 threads: As and Bs are 8 KB together. The price is registers: 64
//  accumulators, 16 operands, the addresses, about 128 registers a thread, so an SM's 65,536
//  registers hold two blocks, 16 warps. Few warps are enough now: each has 64 independent FMAs
//  per k to issue, parallelism inside the thread (ILP) instead of between warps.
//  And yet it measures 16.6 TFLOP/s, no faster than rung 2: its reads collide. Thread t reads
//  Bs[k][(t % 16) * 8 + j]: 16 threads of a warp, 8 words apart, so threads 0, 4, 8 and 12 ask
//  the same bank for different words, a 4-way bank conflict, and each read is served in 4
//  passes; As[(t / 16) * 8 + i][k] conflicts 2-way. The 4-fold saving in reads is eaten by
//  conflicts. (Count them yourself: a word's bank is its address in words, modulo 32.)
//
//  RUNG 4: VECTORIZED LOADS, A TRANSPOSED
//  --------------------------------------
//  Rung 3 spends an instruction on every float it moves. A float4 load (128 bits, LDG.128
//  from global memory, LDS.128 from shared) moves four. A thread's 8 values of B for one k
//  are contiguous in Bs: two float4 reads. Its 8 values of A are a column of As[m][k], 8
//  words apart: so store the A tile transposed, As[k][m], and they are two float4 reads too.
//  From global memory, each thread fetches its share of a slice as one float4 of A (4 values
//  of k of one row) and one of B (4 columns of one row), and writes A's four into a column of
//  As. Per k a thread now issues 4 loads for 64 FMAs, and the conflicts shrink with them (rung
//  5 says what is left): 36.1 TFLOP/s, more than twice rung 3. On the H100 this is the big step.
//  ALIGNMENT. A float4 access must be 16-byte aligned, or the GPU stops with "misaligned
//  address". Row r of A starts at A + r K floats: aligned for every r only when K % 4 == 0;
//  rows of B and C need N % 4 == 0. cudaMalloc's pointers are 256-byte aligned, but an odd K
//  is allowed. So the kernel is a template, sgemm_kernel<kAligned>: float4 when K and N are
//  multiples of 4 and the pointers aligned, one float at a time otherwise; lab9::sgemm picks.
//
//  RUNG 5: WARP TILES AND TWO STAGES
//  ---------------------------------
//  Bank conflicts. A warp's float4 read moves 512 bytes; shared memory serves it 8 lanes
//  (128 bytes) at a time, and within those 8 lanes two addresses in one bank but different
//  words cost an extra pass. In rung 4, thread t's patch is at column (t % 16) * 8: 8 lanes
//  read float4s 32 bytes apart, 256 bytes for 8 lanes, every bank twice: two passes for one.
//  The fix is to spread a thread's 8 x 8 patch as four 4 x 4 fragments, 16 rows and 32
//  columns apart, and lay the lanes out so that 8 neighbouring lanes read 8 neighbouring
//  float4s of Bs (128 contiguous bytes: one pass) and the same float4 of As (a broadcast).
//  Each warp then computes a compact 32 x 64 piece of the block tile, its warp tile, and reads
//  32 + 64 words of shared memory per k instead of 16 + 128. The transposed stores of A get the
//  same care: rows of As are padded to 132 floats, which puts the two halves of a warp's
//  stores in different banks and keeps every row 16-byte aligned.
//  Two stages. So far each slice is: load from global memory, store to shared memory,
//  __syncthreads(), multiply, __syncthreads(); while the loads are on their way nothing of the
//  block computes. With two copies of As and Bs, each thread starts its loads of slice s + 1
//  into registers, multiplies slice s from one stage (the loads arrive meanwhile), then writes
//  slice s + 1 into the other stage: one __syncthreads() per slice, and the global memory
//  latency hidden behind 512 FMAs.
//  Measured apart: warp tiles alone (one stage, two barriers per slice) 36.6 TFLOP/s, 71.1%;
//  with two stages 37.5, 72.5%.
//
//  RUNG 6: MORE WORK PER THREAD: 64 x 64 WARP TILES, 16 x 8 PER THREAD
//  --------------------------------------------------------------------
//  Rung 5's thread reads 4 float4s of shared memory (16 words) for its 64 FMAs of each k: one
//  LDS.128 per 16 FFMA, and a warp's 32 x 64 tile reads 32 + 64 words per k for 2,048 FMAs.
//  Give each thread a 16 x 8 patch instead, four 4 x 4 fragments down (16 rows apart) and two
//  across (32 columns apart): 6 float4 reads (24 words) for 128 FMAs, and a warp's tile grows to
//  64 x 64, 64 + 64 words per k for 4,096 FMAs: a third less shared-memory traffic per FMA.
//  The block tile stays 128 x 128, now 4 warps of 64 x 64, 128 threads. The price is registers:
//  128 accumulators, 24 operands, addresses, about 210 a thread, so two blocks fill an SM: 8
//  warps, half of rung 5's. That is enough when each warp has 128 independent FMAs per k to issue.
//  A slice (128 x 8 of A, 8 x 128 of B) is now two float4s of each per thread.
//
//  RUNG 7: COPIES THAT DO NOT WAIT: CP.ASYNC FOR B
//  -----------------------------------------------
//  Every slice still goes through registers: LDG into registers before the FMAs, STS into
//  shared memory after them, an instruction per float4 each way, issue slots taken from the
//  FMAs. Since sm_80 the GPU copies global memory straight into shared memory: cp.async (CUDA
//  C++: __pipeline_memcpy_async from <cuda_pipeline.h>). The thread issues the copy and goes on
//  at once; no register holds the data. __pipeline_commit() closes the copies issued so far into
//  a group, __pipeline_wait_prior(0) waits until all of them have landed; then a __syncthreads()
//  makes everyone's copies visible. B goes into shared memory as it is: one 16-byte copy per
//  float4. A does not: it is stored transposed, and a copy moves bytes as they are, so A would
//  need a 4-byte copy per element, four times the instructions. The search measured that, and
//  rings of 3 and 4 stages that cp.async makes possible, slower than this kernel (see the
//  README's table): A stays on rung 5's path, through registers, and two stages remain.
//  cp.async exists from sm_80 on, and not at all on the CPU backend. The copies are wrapped in
//  copy4 / copy16 / commit_copies / wait_copies, which use it where __CUDA_ARCH__ >= 800 (nvcc's
//  device pass for such a GPU) and otherwise copy with a plain load and store: the same kernel,
//  correct everywhere, with the overlap where the hardware has it.
//
//  RUNG 8: A WIDER BLOCK TILE, DEEPER SLICES: 128 x 256, BK 16, 256 THREADS
//  -------------------------------------------------------------------------
//  The threads keep rung 6's patch and warp tile (16 x 8, 64 x 64); the block gets twice as many
//  warps, 8 as 2 x 4, and a 128 x 256 tile of C. A word brought from global memory now feeds
//  128 x 256 / (128 + 256) = 85 FMAs instead of 64. And each slice of k is twice as deep,
//  BK = 16: half as many slices, so half as many barriers and loop trips per FMA, 2,048 FMAs of
//  each thread between two barriers. A slice is 128 x 16 of A (two float4s a thread, through
//  registers as before) and 16 x 256 of B (four 16-byte cp.async copies a thread).
//  The price is memory. Two stages of As and Bs are 2 x 16 x (132 + 256) floats, 49,664 bytes:
//  past the 48 KB a kernel may declare in __shared__ arrays. So they are dynamic shared memory
//  (extern __shared__, its size the launch's third argument), which cudaFuncSetAttribute
//  (cudaFuncAttributeMaxDynamicSharedMemorySize) allows past 48 KB. And about 225 registers a
//  thread for 256 threads is most of an SM's 65,536: one block per SM (__launch_bounds__(256, 1)),
//  8 warps, as many as rung 6's two blocks of 4.
//  The search (tools/gpu/gpu_sgemm_search.sh, over the kernel template in
//  tools/measure/bench_steps/lab9_family.cuh) timed it as the fastest of its shapes on an H200: 47.12
//  TFLOP/s at 4096^3, 91.7% of cuBLAS's SGEMM.
//  Past this rung the gap to cuBLAS is in the finer art (double-buffered fragments, other tile
//  shapes per size, instruction scheduling tuned in SASS): GOING FURTHER below.
//
//  EDGES: LAB 5'S BOUNDS, A FLOAT4 AT A TIME
//  -----------------------------------------
//  Any M, N, K: the grid is rounded up to whole 128 x 256 tiles of C and the loop to whole
//  slices of 16, and every load outside A or B gives 0 (adding nothing), every store outside
//  C is skipped, exactly as in lab 5. With float4 (K, N, k0 and the offsets multiples of 4) a
//  group of four is wholly inside or wholly outside, so one test per float4 does. The tests
//  cost a couple of instructions per 2,048 FMAs: there is no separate fast path for inner tiles.
//
//  THE TASK
//  --------
//  Fill in the six helpers below (the TODOs): patch_origin (where a thread's patch lies),
//  load_a (A from global memory to registers, both versions), store_a (registers to shared
//  memory, transposed), copy_b (B from global to shared memory with copy16 / copy4, both
//  versions), multiply_slice (the 16 x 8 outer products) and store_patch (to C, both versions).
//  The copy wrappers, the kernel's main loop (two stages, one barrier per slice) and the host
//  function are written for you. Keep the block mapping: blockIdx.x across C's columns,
//  blockIdx.y down its rows, a 128 x 256 tile per block (lab9.h; the harness names the block
//  that owns a wrong element by it). Inside the block the layout is yours.
//  You can climb in steps: first rung 4's layout (kFragStepM = kFragStepN = 4, patch_origin
//  at ((t / 32) * 16, (t % 32) * 8)), then the warp tile; time each with make lab9 and watch
//  the figure move.
//
//  HOW FAST?
//  ---------
//  The reference solution: 91.7% of cuBLAS at 4096^3 on an H200, 47.12 TFLOP/s (rung 7's
//  reached 86.8% there; on the H100, rung 5's reached 72.5%, 37.5 TFLOP/s against cuBLAS's
//  51.7). The timed runs check their own answers too.
//  On small or thin products (the checks' sizes) it is far from that: 1000 x 1000 is 8 x 4 =
//  32 blocks, for 132 SMs that could each run one. cuBLAS picks other tiles for those shapes.
//
//  RUN IT
//  ------
//      make lab9                            build and check your kernel, then time it
//      make lab9 ARGS="--only odd_small"
//      make lab9 ARGS="--size 100x70x33"    any size of your own, MxNxK
//      make lab9 ARGS="--seed 42"           replay a run with the same inputs
//      make lab9 CHECK=memcheck             run under compute-sanitizer (CHECK=asan on the CPU)
//      make lab9 PROFILE=1                  after the timing: why it is slow, beside the reference
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
//  The same checks as lab 5's, with the same reference and tolerance: A and B random in
//  [-1, 1), C poisoned with NaN, NaN guards past the end of all three, every element of C
//  compared with a double-precision CPU product within the rounding bound of a K-term dot
//  product, g (|A[i][0]| |B[0][j]| + ... + |A[i][K-1]| |B[K-1][j]|), g = (K+1) u / (1 - (K+1) u),
//  u = 2^-24: any order of additions, FMA or not, stays inside; a missing or extra term does
//  not. The sizes aim at a fast kernel's edges: 1 x 1 x 1, 17 x 33 x 65 (odd, smaller than a
//  tile), K = 3 (less than a slice), one block tile, 129 x 257 x 129, K = 130 and N = 254 (rows not
//  16-byte aligned: the float4 path must not run there), a single row, a single column, tall
//  and skinny, 1000^3, whole tiles, and large ones (the timed size among them, checked on 24
//  sampled rows of C). The CPU backend leaves the large ones out. A failure names the block
//  that owns each wrong element and what it sees: never written, NaN (a load past the end of
//  A or B), the last partial slice of k left out, a store past the end of C, and for CUDA's
//  "misaligned address" which sizes make a float4 misaligned.
//  The timing (once every check passes) reports TFLOP/s at 4096^3 as a fraction of cuBLAS
//  measured in the same run, beside one CPU core, rungs 0 to 4 and cuBLAS. Speed points in a
//  graded run start at rung 1, lab 5's kernel: they are for the climb above it.
//
//  GOING FURTHER
//  -------------
//  * Other tile shapes: rung 8 is one point of the search's space (block, warp and thread
//    tiles, BK, stages, cp.async for A as well, block order, split-K); the search's tables
//    rank them all.
//  * Double-buffered fragments: read k + 1's float4s from shared memory into a second set of
//    registers while k's FMAs run. tools/gpu/gpu_sgemm_search.sh times this and the other ideas
//    below on one kernel template (tools/measure/bench_steps/lab9_family.cuh).
//  * Look at what the compiler made of it: cuobjdump -sass build/cuda/labs/lab9.o, and count
//    LDS.128, LDG.E.128 and FFMA in the loop; then ncu --section MemoryWorkloadAnalysis_Tables
//    shows the shared-memory bank conflicts of rung 4 against yours.
//  * Thin shapes (tall_skinny, M = 4001, N = 16) and small ones (1024^3 is 32 blocks of
//    128 x 256 for 132 SMs) use few blocks: split K across blocks and add the partial products
//    (split-K), or pick smaller tiles when M N is small.
//  * Block order: at 4096^3 the grid is 16 x 32 blocks, about 132 of them resident at once.
//    Launching them in groups of a few block rows at a time (a "swizzle") keeps the A and B
//    tiles that neighbours share in L2.
//  * Tensor cores: with TF32 (10-bit mantissa) the H100 multiplies several times faster
//    (WMMA or mma.sync). That is another lab; cuBLAS with CUBLAS_TF32_TENSOR_OP_MATH shows
//    how much faster, and the tolerance above shows why it is not FP32.
// =============================================================================================

#include <cuda_runtime.h>

#include <cstdint>

#include "cudalab/lab9.h"

// cp.async (rung 7) through CUDA's own pipeline primitives (cuda_pipeline.h), in nvcc's device
// pass for sm_80 and later only: __CUDA_ARCH__ is defined there and nowhere else. nvcc's host
// pass, GPUs older than sm_80 and the CPU backend (g++; it has no cuda_pipeline.h) compile the
// plain copies in copy4 / copy16 below instead: the same program, without the overlap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#include <cuda_pipeline.h>
#define LAB9_CP_ASYNC 1
#else
#define LAB9_CP_ASYNC 0
#endif

using lab9::kBlockK;
using lab9::kBlockM;
using lab9::kBlockN;
using lab9::kThreadM;
using lab9::kThreads;
using lab9::kThreadN;

// The warp tile (rung 6): the block's 8 warps as 2 x 4, each a 64 x 64 eighth of the 128 x 256
// block tile (rung 8); a warp's 32 lanes as 4 x 8, each owning a 16 x 8 patch made of 4 x 2 fragments of 4 x 4,
// 16 rows and 32 columns apart. So lane (lr, lc) of warp (wr, wc) owns rows
//   wr*64 + lr*4 + {0..3, 16..19, 32..35, 48..51}   and columns   wc*64 + lc*4 + {0..3, 32..35}
// of the block tile.
// (Rung 4's layout instead: kFragStepM = kFragStepN = 4, and patch_origin below gives thread t
// the patch at ((t / 32) * 16, (t % 32) * 8).)
constexpr int kWarpM = 64, kWarpN = 64;
constexpr int kWarpsAcross = kBlockN / kWarpN;     // 4
constexpr int kLanesDown = kWarpM / kThreadM;      // 4: lanes down a warp tile
constexpr int kLanesAcross = kWarpN / kThreadN;    // 8: lanes along a warp tile's row
constexpr int kFragsM = kThreadM / 4;              // 4 fragments down a patch...
constexpr int kFragsN = kThreadN / 4;              // ...and 2 across
constexpr int kFragStepM = kLanesDown * 4;         // 16: rows between a thread's fragment rows
constexpr int kFragStepN = kLanesAcross * 4;       // 32: columns between its fragment columns
static_assert(kThreadM % 4 == 0 && kThreadN % 4 == 0, "a patch is made of 4 x 4 fragments");
static_assert(kLanesDown * kLanesAcross == 32, "a warp's 32 lanes cover its tile");
static_assert(kWarpsAcross * kWarpN == kBlockN && kBlockM % kWarpM == 0, "the warp tiles cover the block tile");
static_assert((kBlockM / kWarpM) * (kBlockN / kWarpN) * 32 == kThreads, "one warp per warp tile");
// One slice of k is kBlockM x kBlockK of A (512 float4s: two per thread) and kBlockK x kBlockN of
// B (1,024 float4s: four per thread).
constexpr int kLoadsA = kBlockM * kBlockK / 4 / kThreads;  // 2
constexpr int kLoadsB = kBlockK * kBlockN / 4 / kThreads;  // 4
static_assert(kLoadsA * 4 * kThreads == kBlockM * kBlockK && kLoadsB * 4 * kThreads == kBlockK * kBlockN,
              "whole float4s of each per thread");

// As is stored transposed, As[k][m], so that a thread's A values for one k are contiguous (one
// float4 read per fragment). Rows of kBlockM + 4 floats: the 4 extra put the two halves of a
// warp's transposed stores in different banks, and keep every row 16-byte aligned.
constexpr int kAsRow = kBlockM + 4;
// Two stages of both: 2 x 16 x 132 floats of A and 2 x 16 x 256 of B, 49,664 bytes, just over the
// 48 KB a kernel may declare statically (__shared__ arrays). So the kernel takes them as dynamic
// shared memory (extern __shared__, its size the launch's third argument), which a kernel may
// use beyond 48 KB once cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize,
// ...) allows it: lab9::sgemm does that before its first launch.
constexpr int kSmemBytes = 2 * kBlockK * (kAsRow + kBlockN) * int(sizeof(float));

// ---- Copies from global to shared memory (rung 7) -------------------------------------------
// On sm_80 and later cp.async: the copy goes from global memory to shared memory without passing
// through the thread's registers, and the thread goes on at once (the FMAs of the slice before
// run meanwhile). __pipeline_commit() closes a group of copies; __pipeline_wait_prior(0) waits
// until all of this thread's groups have landed. Elsewhere (the CPU backend, older GPUs) a plain
// copy, which is done when it returns: the same program, only without the overlap.
__device__ __forceinline__ void copy4(float* dst_shared, const float* src) {
#if LAB9_CP_ASYNC
  __pipeline_memcpy_async(dst_shared, src, 4);
#else
  *dst_shared = *src;
#endif
}
// 16 bytes: both addresses 16-byte aligned. (16-byte cp.async bypasses L1: .cg.)
__device__ __forceinline__ void copy16(float* dst_shared, const float* src) {
#if LAB9_CP_ASYNC
  __pipeline_memcpy_async(dst_shared, src, 16);
#else
  *reinterpret_cast<float4*>(dst_shared) = *reinterpret_cast<const float4*>(src);
#endif
}
__device__ __forceinline__ void commit_copies() {
#if LAB9_CP_ASYNC
  __pipeline_commit();
#endif
}
__device__ __forceinline__ void wait_copies() {
#if LAB9_CP_ASYNC
  __pipeline_wait_prior(0);
#endif
}

// Where this thread's first fragment lies in the block tile: row and col relative to the
// block tile's top-left corner.
__device__ __forceinline__ void patch_origin(int& row, int& col) {
  // TODO 1: warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  //           row = (warp / kWarpsAcross) * kWarpM + (lane / kLanesAcross) * 4
  //           col = (warp % kWarpsAcross) * kWarpN + (lane % kLanesAcross) * 4
  row = 0;
  col = 0;
}

// A, global memory -> registers: this thread's share of the slice of k starting at k0, two
// groups of 4 consecutive k of one row, 0 where outside the matrix. Group i is u = t + i * 256
// (t = threadIdx.x):  a[i] = A[row0 + u / 4][k0 + (u % 4) * 4 ...+3].
// kVec (K % 4 == 0, A 16-byte aligned): one float4 load, wholly inside or wholly outside;
// otherwise four scalar loads, each tested.
template <bool kVec>
__device__ __forceinline__ void load_a(const float* __restrict__ A, int M, int K, int row0, int k0,
                                       float4 (&a)[kLoadsA]) {
  // TODO 2: for i < kLoadsA (#pragma unroll): u = threadIdx.x + i * kThreads, the row
  //         r = row0 + u / 4 and the first k = k0 + (u % 4) * 4 (kBlockK / 4 = 4 groups per row).
  //         kVec: one float4,  *reinterpret_cast<const float4*>(A + size_t(r) * K + k), when
  //         r < M && k < K, else all 0. Otherwise the four values one by one, each tested (k + j < K).
  for (int i = 0; i < kLoadsA; ++i) a[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// A, registers -> shared memory, transposed: the four values of group u go down a column of As,
// As[(u % 4) * 4 + j][u / 4] = a[i].{x, y, z, w}.
__device__ __forceinline__ void store_a(float (*As)[kAsRow], const float4 (&a)[kLoadsA]) {
  // TODO 3: for i < kLoadsA: u as in load_a, r = u / 4, k = (u % 4) * 4:
  //         As[k + 0][r] = a[i].x, As[k + 1][r] = a[i].y, As[k + 2][r] = a[i].z, As[k + 3][r] = a[i].w
}

// B, global -> shared memory as it is, by cp.async: four groups of 4 columns of one row, group
// u = t + i * 256:  Bs[u / 64][(u % 64) * 4 ...+3] = B[k0 + u / 64][col0 + (u % 64) * 4 ...+3],
// 0 where outside the matrix. kVec (N % 4 == 0, B 16-byte aligned): one 16-byte copy, wholly
// inside or wholly outside; otherwise four 4-byte copies, each tested.
template <bool kVec>
__device__ __forceinline__ void copy_b(const float* __restrict__ B, int N, int K, int col0, int k0,
                                       float (*Bs)[kBlockN]) {
  // TODO 4: for i < kLoadsB: u = threadIdx.x + i * kThreads, kr = u / 64, c = (u % 64) * 4,
  //         k = k0 + kr, col = col0 + c, dst = &Bs[kr][c].
  //         kVec: copy16(dst, B + size_t(k) * N + col) when k < K && col < N, else a float4 of 0
  //         stored at dst. Otherwise for j < 4: copy4(dst + j, ...) when col + j < N too, else 0.
}

// One slice: for each of its kBlockK values of k, this thread's 16 values of A (four float4s of a
// row of As) and 8 of B (two float4s of a row of Bs) in registers, and their 128 products added
// to the 16 x 8 patch. (prow, pcol): the first fragment's corner, from patch_origin.
__device__ __forceinline__ void multiply_slice(const float (*As)[kAsRow], const float (*Bs)[kBlockN], int prow,
                                               int pcol, float (&acc)[kThreadM][kThreadN]) {
  // TODO 5: for k = 0 .. kBlockK-1 (#pragma unroll):
  //           a[16]: the float4s As[k][prow + f * kFragStepM] for f < kFragsM (4)
  //           b[8]:  the float4s Bs[k][pcol + f * kFragStepN] for f < kFragsN (2)
  //           acc[i][j] = fmaf(a[i], b[j], acc[i][j]) for i < 16, j < 8 (#pragma unroll both)
}

// The 16 x 8 patch -> C, element (i, j) at row  row + (i / 4) * kFragStepM + i % 4,  column
// col + (j / 4) * kFragStepN + j % 4  (row, col: the first fragment's corner in C). kVec: each
// fragment row is one float4 store (N % 4 == 0: wholly inside or wholly outside).
template <bool kVec>
__device__ __forceinline__ void store_patch(float* __restrict__ C, int M, int N, int row, int col,
                                            const float (&acc)[kThreadM][kThreadN]) {
  // TODO 6: each store tested: row < M and col < N. kVec: each group of 4 columns is one
  //         float4 store, wholly inside or outside (one test); otherwise one float at a time.
}

// Block (blockIdx.x, blockIdx.y) computes the kBlockM x kBlockN tile of C whose top-left
// element is (blockIdx.y * kBlockM, blockIdx.x * kBlockN); its 256 threads a 16 x 8 patch each.
// Two stages of shared memory: while the block multiplies slice s from one, slice s + 1 is on
// its way into the other, B by cp.async straight into shared memory, A into registers (it goes
// to shared memory transposed, after the FMAs). One __syncthreads() per slice. The two stages
// of As and Bs are kSmemBytes of dynamic shared memory, laid out as the arrays
// As[2][kBlockK][kAsRow] and then Bs[2][kBlockK][kBlockN].
// (Written for you: the TODOs are the helpers above.)
template <bool kVec>
__global__ void __launch_bounds__(kThreads, 1)
    sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  extern __shared__ __align__(16) float smem[];
  float(*As)[kBlockK][kAsRow] = reinterpret_cast<float(*)[kBlockK][kAsRow]>(smem);
  float(*Bs)[kBlockK][kBlockN] = reinterpret_cast<float(*)[kBlockK][kBlockN]>(smem + 2 * kBlockK * kAsRow);
  const int row0 = blockIdx.y * kBlockM, col0 = blockIdx.x * kBlockN;
  int prow = 0, pcol = 0;
  patch_origin(prow, pcol);

  float acc[kThreadM][kThreadN];
#pragma unroll
  for (int i = 0; i < kThreadM; ++i)
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) acc[i][j] = 0.0f;

  // Slice 0 into stage 0.
  float4 a[kLoadsA];
  copy_b<kVec>(B, N, K, col0, 0, Bs[0]);
  commit_copies();
  load_a<kVec>(A, M, K, row0, 0, a);
  store_a(As[0], a);
  wait_copies();   // this thread's copies of B have landed...
  __syncthreads(); // ...and everyone's, and all of As[0] is written

  const int slices = (K + kBlockK - 1) / kBlockK;  // the last one may be partial: its loads give 0
  for (int s = 0; s < slices; ++s) {
    const int cur = s % 2, nxt = 1 - cur;
    const bool more = s + 1 < slices;
    if (more) {  // slice s + 1 on its way, into the stage slice s - 1 used (everyone left it at the last barrier)
      copy_b<kVec>(B, N, K, col0, (s + 1) * kBlockK, Bs[nxt]);
      commit_copies();
      load_a<kVec>(A, M, K, row0, (s + 1) * kBlockK, a);
    }
    multiply_slice(As[cur], Bs[cur], prow, pcol, acc);  // the copies and loads arrive meanwhile
    if (more) store_a(As[nxt], a);
    // Slice s + 1 complete in the other stage before anyone reads it (the wait, then the
    // barrier), and everyone done with stage cur before the next pass refills it (the barrier).
    wait_copies();
    __syncthreads();
  }
  store_patch<kVec>(C, M, N, row0 + prow, col0 + pcol, acc);
}

static bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// More than 48 KB of dynamic shared memory must be allowed per kernel, once.
template <bool kVec>
static void allow_smem() {
  static const bool done = [] {
    cudaFuncSetAttribute(sgemm_kernel<kVec>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    return true;
  }();
  (void)done;
}

void lab9::sgemm(const float* d_A, const float* d_B, float* d_C, int M, int N, int K) {
  const dim3 block(kThreads);
  const dim3 grid((N + kBlockN - 1) / kBlockN, (M + kBlockM - 1) / kBlockM);  // tiles of C, rounded up
  // float4 loads of A, 16-byte copies of B and float4 stores to C need 16-byte aligned addresses:
  // row r of A starts at A + r K, row k of B at B + k N and row r of C at C + r N, so K and N must
  // be multiples of 4 (and the pointers aligned).
  if (K % 4 == 0 && N % 4 == 0 && aligned16(d_A) && aligned16(d_B) && aligned16(d_C)) {
    allow_smem<true>();
    sgemm_kernel<true><<<grid, block, kSmemBytes>>>(d_A, d_B, d_C, M, N, K);
    CUDALAB_CHECK_LAUNCH("sgemm_kernel<true>");
  } else {
    allow_smem<false>();
    sgemm_kernel<false><<<grid, block, kSmemBytes>>>(d_A, d_B, d_C, M, N, K);
    CUDALAB_CHECK_LAUNCH("sgemm_kernel<false>");
  }
}
