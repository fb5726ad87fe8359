// =============================================================================================
//  cudalab · Lab 4 · The padded-tile transpose
// =============================================================================================
//
//  THE IDEA
//  --------
//  Transposing a matrix moves element (r, c) to (c, r). There is no arithmetic at all: every
//  byte is read once and written once. So the only question is how close we get to the
//  speed of a plain device-to-device copy of the same bytes, and the answer depends entirely
//  on the ORDER in which the threads touch memory.
//
//  COALESCING
//  ----------
//  The 32 threads of a warp issue each load and store together. The memory system serves
//  them in 32-byte sectors: when the warp's 32 floats are consecutive (128 bytes), four
//  sectors carry exactly the bytes asked for. When the 32 addresses lie a whole row apart,
//  the warp needs 32 different sectors and uses 4 bytes of each 32 fetched: up to eight
//  times the traffic for the same work. Accesses of the first kind are called coalesced.
//
//  A naive transpose, one thread per element, can make one side coalesced but not both:
//
//      out[c * rows + r] = in[r * cols + c];    // neighbouring threads take neighbouring c:
//                                               // reads consecutive, writes `rows` floats apart
//
//  On the H100 that runs at about 15% of the copy bandwidth.
//
//  WHY SHARED MEMORY
//  -----------------
//  Shared memory is a small on-chip scratchpad that all threads of a block can read and
//  write, with no sectors to waste. So we go through it: the block reads a 32 x 32 tile of
//  the input ROW BY ROW (coalesced), parks it in shared memory, and then writes the
//  transposed tile to the output, again row by row of the OUTPUT (coalesced), taking the
//  values down the COLUMNS of the parked tile. The awkward access pattern now happens in
//  shared memory, where it is cheap... almost.
//
//  BANK CONFLICTS, AND WHY THE +1
//  ------------------------------
//  Shared memory is split into 32 banks; consecutive 4-byte words go to consecutive banks,
//  so word w lives in bank w % 32. Each bank delivers one word per cycle. A warp whose 32
//  threads hit 32 different banks is served at once; threads that hit different words of
//  the SAME bank are served one after another (a bank conflict).
//
//  With `float tile[32][32]`, element [i][k] is word 32*i + k, in bank k. Reading down a
//  column, thread i takes tile[i][k]: all 32 threads in bank k, a 32-way conflict, the warp
//  served 32 times over. Now pad each row with one unused float, `float tile[32][33]`:
//  element [i][k] is word 33*i + k, in bank (i + k) % 32, and the column is spread over all
//  32 banks. One wasted float per row (128 bytes per tile) removes the conflict. Rows are
//  still read and written conflict-free, since their words are still consecutive.
//
//  32 x 8 THREADS, FOUR ELEMENTS EACH
//  ----------------------------------
//  The obvious launch gives each of the tile's 1024 elements its own thread. It works, and
//  on the H100 it reaches only about 54% of the copy bandwidth. The reason is how many
//  bytes are on their way from memory at any moment. A load from HBM takes several hundred
//  nanoseconds to come back; to keep about 23 GB/s flowing into each of the 132 SMs, each
//  SM needs on the order of 10-15 KB in flight at all times. With 1024-thread blocks an SM
//  holds at most two blocks (2048 threads), each thread has one 4-byte load to make, and a
//  block that reaches __syncthreads() stops loading until all of its 1024 threads arrive:
//  at best 8 KB in flight, often much less.
//
//  So the contract fixes blocks of kTile x kBlockRows = 32 x 8 threads, and each thread
//  moves kTile / kBlockRows = 4 elements, rows ty, ty + 8, ty + 16 and ty + 24 of the tile.
//  A thread now issues four independent loads before it needs any of them, and an SM holds
//  eight small blocks whose barriers fall at different times: four times the bytes in
//  flight, and about 90% of the copy bandwidth.
//
//  BOUNDS: ANY ROWS x COLS
//  -----------------------
//  The grid is rounded up to whole tiles, so when rows or cols is not a multiple of 32 the
//  last tile row and tile column stick out past the matrix. A thread there must neither
//  read past the input nor write past the output. There are two tests and they are not the
//  same one:
//      on the way in:   input row < rows   and  input column < cols
//      on the way out:  output row < cols  and  output column < rows   (the output is cols x rows)
//  A skipped load leaves a garbage entry in the tile; that is fine, because the store that
//  would have used it is skipped too. Mixing up rows and cols in one of these tests is the
//  classic bug: square matrices still pass, rectangles do not.
//
//  WHY __syncthreads() BETWEEN THE TWO HALVES
//  ------------------------------------------
//  On the way out a thread writes values that OTHER threads loaded (that is the whole
//  point: it reads down a column of the tile). So every load of the tile must be finished
//  before any thread starts reading it: one __syncthreads() between the halves, reached by
//  every thread of the block (keep it outside the bounds tests). Each block uses its tile
//  once, so one barrier is enough here; in lab 5 a block refills its tiles in a loop, and
//  needs a second barrier before each refill.
//
//  THE TASK
//  --------
//  Fill in transpose_kernel below (the TODOs). The host function lab4::transpose is written
//  for you: blocks of 32 x 8 threads, one block per 32 x 32 tile of the input, with
//  blockIdx.x counting tiles across the input's columns and blockIdx.y down its rows.
//  Use exactly this mapping (the harness names the block and thread that own a wrong
//  element by it). With tx = threadIdx.x, ty = threadIdx.y and j = 0, 8, 16, 24:
//      load   in[(blockIdx.y*32 + ty + j) * cols + blockIdx.x*32 + tx]   into tile[ty + j][tx]
//      store  tile[tx][ty + j]   to   out[(blockIdx.x*32 + ty + j) * rows + blockIdx.y*32 + tx]
//  Both are coalesced: neighbouring threads (tx, tx + 1) touch neighbouring addresses.
//  (rows * cols stays below 2^31, so int indices are safe.)
//
//  RUN IT
//  ------
//      make lab4                          build and check your kernel, then time it
//      make lab4 ARGS="--only odd_rectangle"
//      make lab4 ARGS="--size 33x31"      any size of your own, ROWSxCOLS
//      make lab4 ARGS="--seed 42"         replay a run with the same inputs
//      make lab4 CHECK=memcheck           run under compute-sanitizer
//      make lab4 PROFILE=1                after the timing: why it is slow, beside the reference
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
//  Every check fills the input with random values, fills your output with NaN ("poison")
//  and puts guard values past the ends of both arrays, then compares every element with the
//  exact transpose: a transpose moves values, so the only acceptable error is none.
//  The sizes: 1 x 1, one tile, one past a tile, 33 x 31, partial tiles only on the right or
//  only at the bottom, a single row and a single column, wide and tall rectangles, 1000 x
//  1000, and the timed size (10000 x 10000). A failure shows the first wrong elements with
//  the block and thread that should have written them, and names the pattern:
//  "the output was never written", "only the last partial tile is wrong: check your
//  bounds", "wrote past the end of d_out" (a store without its bounds test), NaN from
//  reading past the end of the input.
//  The timing runs only when every check passes. It reports GB/s counting bytes read plus
//  written, as a fraction of a device-to-device copy measured in the same run, next to one
//  CPU core, the harness's naive kernel (strided writes), and cuBLAS's transpose (geam).
//
//  GOING FURTHER
//  -------------
//  * Remove the +1 and time it again (about 32% of copy on the H100). Nsight Compute shows
//    the conflicts: ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
//  * Change kBlockRows to 32 in a copy of the kernel (1024 threads, one element each) and
//    compare with the figures in THE IDEA. Try 16 and 4 as well.
//  * Drop the __syncthreads() and run make lab4 CHECK=racecheck: the tool names the race.
//  * A square matrix can be transposed in place: swap tile (bx, by) with tile (by, bx),
//    with two tiles in shared memory. Which blocks have nothing to do?
//  * Why does 1 x n need a bounds test at all, if its transpose is the same bytes?
// =============================================================================================

#include <cuda_runtime.h>

#include "cudalab/lab4.h"

using lab4::kBlockRows;
using lab4::kTile;

// Block (blockIdx.x, blockIdx.y) transposes the input tile whose top-left element is
// (blockIdx.y * kTile, blockIdx.x * kTile). in is rows x cols, out is cols x rows.
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  // TODO 1: declare the block's tile in shared memory, padded by one column:
  //           __shared__ float tile[kTile][kTile + 1];

  // TODO 2: load. This thread's input column is blockIdx.x * kTile + threadIdx.x; its rows
  //         are blockIdx.y * kTile + threadIdx.y + j for j = 0, kBlockRows, 2*kBlockRows, ...
  //         (below kTile). For each one INSIDE the matrix (row < rows, column < cols):
  //           tile[threadIdx.y + j][threadIdx.x] = in[row * cols + column];

  // TODO 3: __syncthreads(): every thread of the block, outside any if.

  // TODO 4: store, with the block's roles swapped: this thread's output column is
  //         blockIdx.y * kTile + threadIdx.x, its output rows blockIdx.x * kTile + threadIdx.y + j.
  //         For each one INSIDE the output (row < cols, column < rows):
  //           out[row * rows + column] = tile[threadIdx.x][threadIdx.y + j];
}

void lab4::transpose(const float* d_in, float* d_out, int rows, int cols) {
  const dim3 block(kTile, kBlockRows);                                      // 32 x 8 = 256 threads
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);  // whole tiles, rounded up
  transpose_kernel<<<grid, block>>>(d_in, d_out, rows, cols);
  CUDALAB_CHECK_LAUNCH("transpose_kernel");
}
