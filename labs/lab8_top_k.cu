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
//  (n / 2048) x k candidates: at least 8 times smaller, because k <= 256. Repeat, level after
//  level, until one block holds all the candidates: its first k are the answer.
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
//      make solution8                     the reference solution, for comparison
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
//  MAKING IT FAST
//  --------------
//  Your level 1 sorts every element, 66 steps for each tile: correct, and slower than CUB's
//  whole radix sort. Almost all of that work is wasted: once a block has its k candidates, an
//  element that does not come before the k-th of them can never be in that block's answer.
//  The reference keeps each block's current top k sorted in shared memory and reads its part
//  of the input tile by tile, appending only the elements that beat the current k-th (an
//  atomicAdd on a shared counter gives each its slot). When the appended ones fill a buffer,
//  or at the end, it sorts the buffer together with the current top k, keeps the first k, and
//  the bar rises. On random data the bar soon rises so high that nearly nothing is appended,
//  and level 1 costs little more than reading the input. (An ascending input beats the bar
//  with every element: still right, and then as slow as sorting.)
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
