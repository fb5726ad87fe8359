// =============================================================================================
//  cudalab · Lab 5 · The bounds-checked tiled matrix product · REFERENCE SOLUTION
// =============================================================================================
//
//  THE IDEA
//  --------
//  C = A B, with A of M x K, B of K x N and C of M x N, all row-major floats:
//
//      C[i][j] = A[i][0] B[0][j] + A[i][1] B[1][j] + ... + A[i][K-1] B[K-1][j]
//
//  That is 2 M N K floating-point operations (a multiply and an add per term). The simplest
//  kernel gives each element of C its own thread, which walks row i of A and column j of B
//  straight from global memory: 2 K loads for 2 K operations. Every element of A is loaded
//  N times over and every element of B M times over, and the kernel spends its life waiting
//  for memory. On the H100 it reaches about 10% of cuBLAS at N = 4096.
//
//  TILES IN SHARED MEMORY
//  ----------------------
//  Neighbouring threads need the same data: the 32 x 32 threads that compute a 32 x 32 tile
//  of C all use the same 32 rows of A and the same 32 columns of B. So the block fetches
//  them together, one 32 x 32 piece at a time, into shared memory, and every element it
//  fetches is then used 32 times from there:
//
//      for each tile t along k (t = 0, 32, 64, ... below K):
//          thread (tx, ty) loads  A[row][t + tx]  into As[ty][tx]
//                             and B[t + ty][col]  into Bs[ty][tx]
//          __syncthreads()
//          acc += As[ty][k] * Bs[k][tx]   for k = 0 .. 31
//          __syncthreads()
//      C[row][col] = acc
//
//  with row = blockIdx.y * 32 + ty and col = blockIdx.x * 32 + tx. Global memory traffic
//  drops 32-fold. Both loads are coalesced: neighbouring tx read neighbouring addresses.
//
//  WHY TWO __syncthreads()
//  -----------------------
//  The first: a thread's 32 products use tile elements that 62 other threads loaded, so all
//  loads must be done before anyone reads. The second: the next trip round the loop
//  overwrites the tiles, so everyone must be done reading the current ones before anyone
//  refills them. Leave out the second and a fast warp can change Bs under a slow one; the
//  answer is wrong only sometimes, which is the worst kind of wrong.
//  Every thread of the block must reach every barrier. That rules out the tempting
//
//      if (row >= M || col >= N) return;     // NO: this thread still has tile elements to load
//
//  at the top: a thread outside C still loads its share of As and Bs for its neighbours.
//
//  BANK CONFLICTS? NOT HERE
//  ------------------------
//  A warp is 32 threads with the same ty and tx = 0 .. 31. In the inner loop they all read
//  the same word As[ty][k] (one word for everyone: a broadcast, served at once) and 32
//  consecutive words Bs[k][0 .. 31] (32 different banks). No padding is needed, unlike in
//  lab 4, where a warp walked down a column.
//
//  BOUNDS: WHY TILES NEED THEM
//  ---------------------------
//  M, N and K are rarely multiples of 32. The grid is rounded up to whole tiles of C, and
//  the loop to whole tiles along k, so some loads fall outside A or B and some threads own
//  no element of C. Three tests, one for each array:
//      loading A:   row < M       and  t + tx < K
//      loading B:   t + ty < K    and  col < N
//      storing C:   row < M       and  col < N
//  When a load falls outside, store 0 in the tile instead. Zero adds nothing to any
//  product, so the inner loop needs no test at all and every thread runs the same code.
//
//  1000 x 1000 is the classic trap: 1000 = 31.25 tiles. Without the tests the last tile
//  along k reads 24 elements past the end of each row of A, which is simply the start of
//  the next row: plausible numbers, no crash, a wrong answer. The harness puts NaN past
//  the end of every array, so such reads show up in your results instead of hiding.
//
//  THE TASK
//  --------
//  Fill in matmul_kernel below (the TODOs). The host function lab5::matmul is written for
//  you: blocks of 32 x 32 threads, one per 32 x 32 tile of C, blockIdx.x across C's columns
//  and blockIdx.y down its rows. Keep that mapping (the harness names the block and thread
//  that own a wrong element by it). The matrices stay below 2^31 elements, so int indices
//  are safe.
//
//  HOW FAST?
//  ---------
//  Expect about 18% of cuBLAS SGEMM at N = 4096 on the H100, about twice the naive kernel.
//  The limit is now shared memory: every multiply-add needs a word of Bs from it. An SM
//  reads 32 shared-memory words per clock but can do 128 multiply-adds per clock, so this
//  design can never pass a quarter of the chip's arithmetic. cuBLAS gets past that by
//  computing many elements of C per thread from registers (see GOING FURTHER).
//
//  RUN IT
//  ------
//      make lab5                            build and check your kernel, then time it
//      make lab5 ARGS="--only classic_1000"
//      make lab5 ARGS="--size 100x70x33"    any size of your own, MxNxK
//      make lab5 ARGS="--seed 42"           replay a run with the same inputs
//      make lab5 CHECK=memcheck             run under compute-sanitizer
//      make lab5 PROFILE=1                  after the timing: why it is slow, beside the reference
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
//  Every check fills A and B with random values in [-1, 1), fills C with NaN ("poison"),
//  puts NaN guards past the end of all three, and compares each element of C with a
//  double-precision CPU product. Floats round, and your kernel adds in its own order, so
//  each element gets a tolerance from the standard rounding bound of a K-term dot product:
//      |error| <= g * (|A[i][0]| |B[0][j]| + ... + |A[i][K-1]| |B[K-1][j]|),
//      g = (K+1) u / (1 - (K+1) u),  u = 2^-24
//  Any order of additions, fused multiply-add or not, stays inside it; a missing or extra
//  term does not. The sizes: 1 x 1 x 1, one tile, one past a tile, K below a tile, a single
//  row, a single column, non-square, tall and skinny, 1000^3, whole tiles, and large ones
//  (the timed size among them), which are checked on 24 sampled rows of C (the first and
//  last rows, rows at tile edges, random rows) to keep the CPU reference quick.
//  A failure lists the first wrong elements with the block and thread that own them, and
//  names what it sees: "the output was never written", "only the last partial tile is
//  wrong: check your bounds", NaN (a load read past the end of A or B), "wrote past the end
//  of d_C" (a store without its bounds test).
//  The timing (only once every check passes) reports TFLOP/s at 4096 x 4096 x 4096 as a
//  fraction of cuBLAS SGEMM measured in the same run, next to one CPU core, the harness's
//  naive kernel (one thread per element, no shared memory), and cuBLAS itself.
//
//  GOING FURTHER
//  -------------
//  * Several outputs per thread: take blocks of 32 x 8 threads (as in lab 4) and let each
//    thread compute rows ty, ty + 8, ty + 16, ty + 24 of the tile with four accumulators.
//    Each Bs word now feeds four multiply-adds instead of one; on the H100 that alone doubles
//    the speed (about 35% of cuBLAS). Then go 2-D: each thread an 8 x 8 patch of C held in
//    registers. That road leads to cuBLAS-class kernels.
//  * Remove the bounds tests from a copy of your kernel and run --size 1024x1024x1024
//    (it passes) and --only classic_1000 (it does not); then CHECK=memcheck.
//  * Remove the second __syncthreads() and run CHECK=racecheck.
//  * Try 16 x 16 tiles. More blocks fit on an SM, but each fetched element is reused half
//    as often. Which wins?
//  * Count waves: with 1024-thread blocks an SM runs two at a time, so the H100's 132 SMs
//    run 264 blocks at once. How many waves does 1000 x 1000 take (1024 tiles of C), and
//    how full is the last one? Compare the TFLOP/s of --size 1000x1000x1000 with 4096.
// =============================================================================================

#include <cuda_runtime.h>

#include "cudalab/lab5.h"

using lab5::kTile;

// Block (blockIdx.x, blockIdx.y) computes the tile of C whose top-left element is
// (blockIdx.y * kTile, blockIdx.x * kTile); thread (tx, ty) computes C[row][col] with
// row = blockIdx.y * kTile + ty and col = blockIdx.x * kTile + tx.
__global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[kTile][kTile];  // As[ty][k]: row ty of the current tile of A
  __shared__ float Bs[kTile][kTile];  // Bs[k][tx]: column tx of the current tile of B
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;

  float acc = 0.0f;
  for (int t = 0; t < K; t += kTile) {  // ceil(K / kTile) tiles along k
    // Each thread loads one element of each tile; outside a matrix it loads 0, which
    // adds nothing to any product.
    const int a_col = t + tx, b_row = t + ty;
    As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
    __syncthreads();  // the whole tile is loaded before anyone reads it

    // A warp (fixed ty, tx = 0..31) reads one As word (a broadcast) and 32 consecutive
    // Bs words (32 banks): no bank conflicts.
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();  // everyone is done with this tile before the next loop refills it
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

void lab5::matmul(const float* d_A, const float* d_B, float* d_C, int M, int N, int K) {
  const dim3 block(kTile, kTile);                                     // 32 x 32 = 1024 threads
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);  // tiles of C, rounded up
  matmul_kernel<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
  CUDALAB_CHECK_LAUNCH("matmul_kernel");
}
