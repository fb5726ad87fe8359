// =============================================================================================
//  cudalab · Lab 8 · Top-K, done right
// =============================================================================================
//
//  THE PROBLEM
//  -----------
//  Find the k largest of n floats, and where they are: their values and their indices, in
//  order. lab8.h states the order exactly, because "the k largest" is not yet an answer when
//  values repeat: element i comes before element j when its value is larger, or when the
//  values are equal and i < j (a tie goes to the lower index). Every element then has its own
//  place, and the answer, places 0 to k-1, is unique. k runs from 1 to 256, and k = n is
//  allowed.
//
//  WHY EACH BLOCK'S MAXIMUM IS NOT ENOUGH
//  --------------------------------------
//  A sum's blocks each reduce their elements to one number, and a tempting top-k does the same
//  with (value, index) pairs: each block keeps its largest element, and the k largest of those
//  are the answer. That is right for k = 1 and wrong for every larger k. Take k = 2, blocks of
//  4 elements, and the input
//
//      block 0: 9 8 1 1      block 1: 2 3 1 0      block 2: 1 1 1 4
//
//  The block maxima are 9, 3 and 4, so it answers 9, 4; the right answer is 9, 8. Both of the
//  two largest live in block 0, and a block that keeps one element drops the second. Nothing
//  says the k largest are spread over k blocks, so each block must keep its own k largest.
//
//  THE METHOD: LEVELS, AS IN LAB 3
//  -------------------------------
//  Each block takes a tile of kTile = 2048 elements, puts them in the order, and keeps the
//  first k: its candidates. The k largest of the whole input are among the candidates (each
//  of them is among the k largest of its own tile), so the problem is now the same one on
//  ceil(n / 2048) x k candidates: at least 8 times fewer, because k <= 256 (the last tile may
//  be partial, hence the rounding up). Repeat, level after level, until one block holds all the
//  candidates: its first k are the answer.
//
//      level 1:  n = 1,000,000 elements       ->  489 tiles x k candidates
//      level 2:  489 x k (k = 64: 31,296)     ->  16 tiles x k
//      level 3:  16 x k = 1,024               ->  1 tile: the answer
//
//  From level 2 on, an element is a (value, index) pair: the index is where the value was in
//  d_values, which the candidates carry with them. A tile that is not full is padded with
//  (-infinity, kNoIndex), which comes after every real element (a real -infinity has a
//  smaller index), so padding never reaches the answer.
//
//  SORTING A TILE: THE BITONIC SORT
//  --------------------------------
//  A block sorts its 2048 pairs in shared memory with a bitonic sort: a fixed sequence of
//  steps, each comparing 1024 pairs of slots (a, a + stride) at once, one per thread, with a
//  barrier between steps. For size = 2, 4, ..., 2048 and, inside, stride = size/2, ..., 1:
//  thread t takes slot a = 2 * stride * (t / stride) + t % stride and its partner b = a +
//  stride, and swaps them when they are out of order, where "in order" means a before b
//  when (a & size) == 0 and b before a otherwise. Runs of `size` slots come out sorted
//  alternately up and down, and the next size merges two such runs; the last size (2048) is
//  all one run, sorted into the order. 66 steps, every thread busy in each.
//
//  WHERE THE CANDIDATES GO
//  -----------------------
//  As in lab 3, the levels ping-pong between two regions of the scratch, here a pair of
//  arrays (values and indices): region A at d_scratch_values and d_scratch_indices, region B
//  at the same arrays plus half = ((n + 1023) / 1024 + 1) * k. The level that runs as one
//  block writes d_top_values and d_top_indices instead. The scratch is not cleared for you.
//
//  Why 1024 in `half` when a tile holds 2048? lab8.h gives every lab file the same scratch,
//  sized for any method whose blocks keep k of at least 1024 elements: two regions of
//  ceil(n / 1024) + 1 lists of k. Your level 1 writes ceil(n / 2048) lists into region A, about
//  half of it, and every later level fewer; region B must start past the largest level region
//  A ever holds, and `half`, the harness's own size of a region, always does. (A half computed
//  from 2048 would fit your levels too, but then the two regions would not be the ones lab8.h
//  describes, and a change of tile size would have to change it too.)
//
//  THE TASK
//  --------
//  TODO 1: comes_before, the contract's order. TODO 2-4 in top_k_level: load the tile, sort
//  it, write the first k. TODO 5: the loop over levels in lab8::top_k.
//
//  RUN IT
//  ------
//      make lab8                          build, check, then time your code
//      make lab8 ARGS="--only ties_at_kth"
//      make lab8 ARGS="--size 1000000"    check and time one size of your choice
//      make lab8 PROFILE=1                after the timing: why it is slow, beside the reference
//      make solution8                     the reference solution, for comparison
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
//  Your k indices and values are compared with a CPU top-k under the same order, place by
//  place, exactly. The inputs: random values (positive, negative, both), k = 1, k = n, k =
//  256, all values equal (the answer is then indices 0 to k-1), a few distinct values so that
//  many elements tie with the k-th, +0.0 and -0.0 (equal), infinities, ascending and
//  descending inputs, and sizes that are not a multiple of a tile. A wrong answer is
//  explained: an index out of range, a value that is not d_values[index], an element that is
//  missing (and which place it should have had), the right elements in the wrong order, or a
//  tie given to the higher index. The timing finds the 64 largest of 2^26 floats and compares
//  with one CPU core, the harness's naive kernel (k passes, each finding the next element) and
//  CUB (DeviceRadixSort::SortPairsDescending of every pair, then the first k: CUB has no
//  top-k of its own).
//
//  MAKING IT FAST: WHAT THE REFERENCE ADDS
//  ---------------------------------------
//  On an H100, the 64 largest of 2^26 floats: the naive kernel (k passes) takes 7.96 ms, CUB's
//  whole radix sort 2.14 ms, your levels 4.99 ms (tools/measure/bench_steps), the reference 0.507 ms
//  (4.2x faster
//  than the sort). Your level 1 sorts every element, 66 steps for each tile, and almost all of
//  that work is wasted: once a block has k candidates, an element that does not come before
//  the k-th of them can never be in that block's answer. The reference is built on that, in
//  five ideas. tools/measure/bench_steps times the first two on their own (make bench-steps); the
//  other three are what keeps them right and cheap, and have no time of their own to show.
//
//  1. The bar. A block keeps its current top k, sorted, in slots [0, k) of a shared buffer
//     (kBuffer = 4096 pairs, 32 KiB), and the k-th of them is the bar. It reads its input a
//     tile at a time and appends after slot k only the elements that come before the bar. When
//     the appended ones could overflow the buffer with the next tile, or at the end, it sorts
//     slots [0, k + appended) and the first k are the new top k: the bar rises. On random data
//     it soon rises so high that nearly nothing is appended, and reading the input is most of
//     the cost. (An ascending input beats the bar with every element: still right, and then as
//     slow as sorting.) But with one block per tile, as your levels have, every block sees one
//     tile with the bar at -infinity: everything is appended and sorted once, and nothing is
//     saved. On the H100: 8.59 ms (one block per tile), slower than your levels (0.58x): the
//     bar costs work and, alone, saves none. The next idea is what makes it pay.
//
//  2. One wave of resident blocks. So the reference launches only as many blocks as the GPU
//     runs at once (lab 6's occupancy query, asked once), and gives each a range of whole
//     tiles: chunk = ceil(m / resident), rounded up to a multiple of kTile. With 2^26 elements
//     spread over several hundred resident blocks (132 multiprocessors, a few blocks each), a
//     block reads a few dozen tiles, and its bar is high after the first few. No block waits
//     for a second wave, and a level's output is resident x k candidates: the next level is
//     small. Whole tiles keep the rule of THE METHOD (each level shrinks at least kTile / k >= 8
//     times), so every level still fits its region. On the H100: 0.513 ms (one wave), 16.8x
//     the step before (the lab's own timing: 0.507 ms, 530 GB/s of input).
//
//  3. The cheap test first. From level 2 on, an element's index is a second load from global
//     memory (in_indices[p]); its value is already in a register. A value below the bar's can
//     never come before the bar, whatever its index, so each thread tests x >= bar_value first
//     and reads the index, for the exact comes_before(x, index, bar_value, bar_index), only
//     when that passes. (>=, not >: an equal value with a lower index does come before.)
//
//  4. The counter, read between two barriers. An appended element takes its slot with
//     k + atomicAdd(&appended, 1u): threads append in any order, each to a slot of its own.
//     After a tile, every thread must make the same choice, merge or not, because the merge is
//     full of barriers that every thread of the block must reach. So:
//
//         __syncthreads();                   // every append of this tile is in
//         const unsigned count = appended;   // every thread reads the same number
//         __syncthreads();                   // every thread has read it
//         ... if (merge) { if (t == 0) appended = 0; ... }
//
//     Without the second barrier, a slow thread could read the 0 that thread 0 has just
//     written, skip the merge the others entered, and the block's barriers would no longer
//     pair up (a hang or a wrong answer on a GPU; the CPU backend's `barriers` check names it).
//
//  5. A bitonic sort of any power-of-two size. A merge sorts only slots [0, k + count), padded
//     with (-infinity, kNoIndex) up to the next power of two (a bitonic sort needs one): 64
//     candidates and 100 appended sort 256 slots, not 4096. The steps are those of SORTING A
//     TILE with `size` in place of 2048; a step of a 4096-slot sort has 2048 pairs for 256
//     threads, so each thread takes pairs p = t, t + 256, ... before the step's barrier.
//
//  solutions/lab8_top_k.cu is these five ideas on 256-thread blocks reading 8 elements each per
//  tile (kTile = 2048, as yours).
// =============================================================================================

#include <cuda_runtime.h>

#include <climits>
#include <cmath>

#include "cudalab/lab8.h"

constexpr unsigned kThreads = 1024;        // threads per block: one slot pair each per step
constexpr unsigned kTile = 2 * kThreads;   // elements a block sorts: 2048, at least 8 x kMaxK
constexpr int kNoIndex = INT_MAX;          // padding is (-INFINITY, kNoIndex): last in the order

// How many blocks (and so lists of k candidates) a level over m elements has.
static size_t blocks_for(size_t m) { return (m + kTile - 1) / kTile; }

// True when (v, i) comes before (w, j) in the contract's order.
__device__ bool comes_before(float v, int i, float w, int j) {
  // TODO 1: a larger value comes first; equal values, the lower index.
  (void)v, (void)i, (void)w, (void)j;
  return false;
}

// Block b sorts elements [b * kTile, (b + 1) * kTile) of the level's input into the order and
// writes the first k to out_values and out_indices [b * k, (b + 1) * k). in_indices is nullptr
// at level 1, where element p's index is p itself. Launched with kThreads threads per block.
__global__ void top_k_level(const float* in_values, const int* in_indices, size_t m, int k, float* out_values,
                            int* out_indices) {
  __shared__ float s_values[kTile];
  __shared__ int s_indices[kTile];
  const unsigned t = threadIdx.x;

  // TODO 2: thread t loads slots t and t + kThreads: element p = blockIdx.x * kTile + slot
  //         (a size_t) has value in_values[p] and index in_indices ? in_indices[p] : int(p);
  //         a slot with p >= m holds the padding, (-INFINITY, kNoIndex). Then __syncthreads().
  (void)in_values, (void)in_indices, (void)m;

  // TODO 3: the bitonic sort (SORTING A TILE). The loops are here; each step, thread t
  //         compares slots a and b and swaps both arrays' entries when they are out of order.
  for (unsigned size = 2; size <= kTile; size *= 2) {
    for (unsigned stride = size / 2; stride > 0; stride /= 2) {
      const unsigned a = 2 * stride * (t / stride) + t % stride, b = a + stride;
      (void)a, (void)b;
      __syncthreads();
    }
  }

  // TODO 4: threads t < k write slot t to out_values and out_indices[blockIdx.x * k + t].
  (void)k, (void)out_values, (void)out_indices;
}

void lab8::top_k(const float* d_values, float* d_scratch_values, int* d_scratch_indices, float* d_top_values,
                 int* d_top_indices, size_t n, int k) {
  // Level 1, written for you. When one block is enough, it writes the answer itself.
  const size_t blocks = blocks_for(n);
  float* out_values = blocks == 1 ? d_top_values : d_scratch_values;
  int* out_indices = blocks == 1 ? d_top_indices : d_scratch_indices;
  top_k_level<<<unsigned(blocks), kThreads>>>(d_values, nullptr, n, k, out_values, out_indices);
  CUDALAB_CHECK_LAUNCH("top_k_level");

  // TODO 5: while the level just launched had more than one block, launch another: its input
  //         is the previous level's output (values and indices), its m the previous level's
  //         blocks * k; its output alternates between region A (d_scratch_values and
  //         d_scratch_indices) and region B (the same plus half, WHERE THE CANDIDATES GO),
  //         except that the level with one block writes d_top_values and d_top_indices.
  //         CUDALAB_CHECK_LAUNCH after each.
}
