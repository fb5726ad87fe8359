// Known slow: the reference with its merge done by one thread. Instead of the block's bitonic
// sort, thread 0 inserts the appended candidates into the sorted top k one at a time while the
// other threads wait: a warp has one lane of 32 at work through every merge. The first merge of
// each block takes a whole tile (the bar is still -infinity), and at the profiled size (2^16
// elements, one tile a block) that is every merge; on a GPU at the timed size it is the first
// of few (not yet measured).
// expect-message: divergent warps are the limiter
#include <cuda_runtime.h>

#include <climits>
#include <cmath>

#include "cudalab/lab8.h"

// The reference follows "making it fast": the same levels, but a block does not sort its whole
// part of the input. It keeps its current top k, sorted, in slots [0, k) of a shared buffer of
// kBuffer pairs, reads its range tile by tile, and appends after slot k only the elements that
// come before its current k-th (the bar). When the appended ones could overflow the buffer with
// the next tile, or at the end, it sorts slots [0, k + appended) and the first k become the
// new top k. A block's range is a whole number of tiles, and a grid of as many blocks as run
// at once covers the input in one wave.
constexpr unsigned kThreads = 256;                 // threads per block
constexpr unsigned kPerThread = 8;                 // elements a thread reads per tile
constexpr unsigned kTile = kThreads * kPerThread;  // 2,048 elements per tile
constexpr unsigned kBuffer = 4096;                 // pairs in shared memory: 32 KiB
constexpr unsigned kMergeAbove = kBuffer - lab8::kMaxK - kTile;  // appended pairs that force a merge
constexpr int kNoIndex = INT_MAX;                  // padding is (-INFINITY, kNoIndex): last of all

// True when (v, i) comes before (w, j): a larger value, or an equal value and a lower index.
__device__ __forceinline__ bool comes_before(float v, int i, float w, int j) {
  return v > w || (v == w && i < j);
}

// Thread 0 alone merges: it takes the appended pairs one at a time and inserts each that beats
// the k-th into the sorted slots [0, k), shifting the smaller ones down. Right, but one lane of
// one warp works while the block's other 255 threads wait at the barrier after it.
__device__ void serial_merge(float* sv, int* si, int k, unsigned count) {
  if (threadIdx.x == 0) {
    for (unsigned s = k; s < k + count; ++s) {
      const float v = sv[s];
      const int i = si[s];
      if (!comes_before(v, i, sv[k - 1], si[k - 1])) continue;
      int j = k - 1;
      for (; j > 0 && comes_before(v, i, sv[j - 1], si[j - 1]); --j) {
        sv[j] = sv[j - 1];
        si[j] = si[j - 1];
      }
      sv[j] = v;
      si[j] = i;
    }
  }
  __syncthreads();
}

// Block b finds the first k of elements [b * chunk, min((b + 1) * chunk, m)) of the level's
// input (chunk: a multiple of kTile) and writes them, in order, to out_*[b * k, (b + 1) * k)
// (padding where the range holds fewer than k). in_indices is nullptr at level 1, where
// element p's index is p.
__global__ void __launch_bounds__(kThreads) top_k_level(const float* __restrict__ in_values,
                                                        const int* __restrict__ in_indices, size_t m,
                                                        size_t chunk, int k, float* __restrict__ out_values,
                                                        int* __restrict__ out_indices) {
  __shared__ float sv[kBuffer];
  __shared__ int si[kBuffer];
  __shared__ unsigned appended;
  const unsigned t = threadIdx.x;
  for (unsigned s = t; s < kBuffer; s += kThreads) {
    sv[s] = -INFINITY;
    si[s] = kNoIndex;
  }
  if (t == 0) appended = 0;
  __syncthreads();

  float bar_value = -INFINITY;  // the current k-th: an element must come before it to matter
  int bar_index = kNoIndex;
  const size_t begin = size_t(blockIdx.x) * chunk;
  const size_t end = begin + chunk < m ? begin + chunk : m;

  for (size_t tile = begin; tile < end; tile += kTile) {
    // Read the tile: all kPerThread loads first (a warp reads 32 neighbouring floats each),
    // then append those that beat the bar. Indices are read only for those.
    float x[kPerThread];
    if (tile + kTile <= end) {
#pragma unroll
      for (unsigned j = 0; j < kPerThread; ++j) x[j] = in_values[tile + t + j * kThreads];
    } else {
#pragma unroll
      for (unsigned j = 0; j < kPerThread; ++j) {
        const size_t p = tile + t + j * kThreads;
        x[j] = p < end ? in_values[p] : -INFINITY;
      }
    }
#pragma unroll
    for (unsigned j = 0; j < kPerThread; ++j) {
      const size_t p = tile + t + j * kThreads;
      if (p < end && x[j] >= bar_value) {  // cheap test first; the exact one needs the index
        const int index = in_indices ? in_indices[p] : int(p);
        if (comes_before(x[j], index, bar_value, bar_index)) {
          const unsigned slot = k + atomicAdd(&appended, 1u);
          sv[slot] = x[j];
          si[slot] = index;
        }
      }
    }
    __syncthreads();
    const unsigned count = appended;  // the same for every thread: read between two barriers
    __syncthreads();
    if (count > kMergeAbove || (count > 0 && tile + kTile >= end)) {
      if (t == 0) appended = 0;  // everyone has read count; the merge's barrier publishes this
      serial_merge(sv, si, k, count);
      bar_value = sv[k - 1];
      bar_index = si[k - 1];
    }
  }

  for (int r = t; r < k; r += kThreads) {
    out_values[size_t(blockIdx.x) * k + r] = sv[r];
    out_indices[size_t(blockIdx.x) * k + r] = si[r];
  }
}

void lab8::top_k(const float* d_values, float* d_scratch_values, int* d_scratch_indices, float* d_top_values,
                 int* d_top_indices, size_t n, int k) {
  // Blocks resident at once: asked once per process (the answer never changes, and the
  // queries cost more than a small launch).
  static const size_t resident = [] {
    int device = 0, sms = 0, per_sm = 0;
    CUDALAB_CHECK(cudaGetDevice(&device));
    CUDALAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDALAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, top_k_level, kThreads, 0));
    return size_t(sms) * size_t(per_sm > 0 ? per_sm : 1);
  }();

  // Two regions of the scratch, taking turns (lab8.h: each holds ceil(n / 1024) + 1 lists).
  const size_t half = ((n + 1023) / 1024 + 1) * size_t(k);
  float* const region_values[2] = {d_scratch_values, d_scratch_values + half};
  int* const region_indices[2] = {d_scratch_indices, d_scratch_indices + half};

  const float* in_values = d_values;
  const int* in_indices = nullptr;
  size_t m = n;
  for (int level = 0;; ++level) {
    // One wave of blocks, each a whole number of tiles (so every level shrinks at least
    // kTile / k >= 8 times and fits its region).
    size_t chunk = (m + resident - 1) / resident;
    chunk = (chunk + kTile - 1) / kTile * kTile;
    const size_t blocks = (m + chunk - 1) / chunk;
    float* out_values = blocks == 1 ? d_top_values : region_values[level % 2];
    int* out_indices = blocks == 1 ? d_top_indices : region_indices[level % 2];
    top_k_level<<<unsigned(blocks), kThreads>>>(in_values, in_indices, m, chunk, k, out_values, out_indices);
    CUDALAB_CHECK_LAUNCH("top_k_level");
    if (blocks == 1) return;
    in_values = out_values;
    in_indices = out_indices;
    m = blocks * size_t(k);
  }
}
