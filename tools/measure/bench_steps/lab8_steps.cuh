// Lab 8's steps, from the task's levels to the reference's:
//   the task: every level sorts whole tiles of 2048 (1024 threads, bitonic) and keeps k of each
//   + the bar, with one block per tile (a block sees one tile, so the bar never rises)
//   + the bar, with one wave of resident blocks, each reading many tiles (the reference)
// The bar's kernel is the reference's (solutions/lab8_top_k.cu); only the chunk differs.
#pragma once
#include <climits>
#include <cmath>

#include "bench.cuh"

namespace lab8_steps {

constexpr int kMaxK = 256;
constexpr int kNoIndex = INT_MAX;

__device__ __forceinline__ bool comes_before(float v, int i, float w, int j) { return v > w || (v == w && i < j); }

__device__ __forceinline__ void compare_swap(float* sv, int* si, unsigned a, unsigned b, bool keep_order) {
  if (comes_before(sv[b], si[b], sv[a], si[a]) == keep_order) {
    const float v = sv[a];
    sv[a] = sv[b];
    sv[b] = v;
    const int i = si[a];
    si[a] = si[b];
    si[b] = i;
  }
}

// ---- The task: sort every tile --------------------------------------------------------------
namespace task {
constexpr unsigned kThreads = 1024, kTile = 2 * kThreads;

__global__ void __launch_bounds__(kThreads) level(const float* in_values, const int* in_indices, size_t m, int k,
                                                  float* out_values, int* out_indices) {
  __shared__ float sv[kTile];
  __shared__ int si[kTile];
  const unsigned t = threadIdx.x;
  for (unsigned slot = t; slot < kTile; slot += kThreads) {
    const size_t p = size_t(blockIdx.x) * kTile + slot;
    sv[slot] = p < m ? in_values[p] : -INFINITY;
    si[slot] = p < m ? (in_indices ? in_indices[p] : int(p)) : kNoIndex;
  }
  __syncthreads();
  for (unsigned size = 2; size <= kTile; size *= 2) {
    for (unsigned stride = size / 2; stride > 0; stride /= 2) {
      const unsigned a = 2 * stride * (t / stride) + t % stride;
      compare_swap(sv, si, a, a + stride, (a & size) == 0);
      __syncthreads();
    }
  }
  for (int r = t; r < k; r += kThreads) {
    out_values[size_t(blockIdx.x) * k + r] = sv[r];
    out_indices[size_t(blockIdx.x) * k + r] = si[r];
  }
}

void top_k(const float* d_values, float* sv, int* si, float* top_v, int* top_i, size_t n, int k) {
  const size_t half = ((n + 1023) / 1024 + 1) * size_t(k);
  const float* in_v = d_values;
  const int* in_i = nullptr;
  for (size_t m = n, lvl = 0;; ++lvl) {
    const size_t blocks = (m + kTile - 1) / kTile;
    float* out_v = blocks == 1 ? top_v : sv + (lvl % 2) * half;
    int* out_i = blocks == 1 ? top_i : si + (lvl % 2) * half;
    level<<<unsigned(blocks), kThreads>>>(in_v, in_i, m, k, out_v, out_i);
    if (blocks == 1) return;
    in_v = out_v;
    in_i = out_i;
    m = blocks * size_t(k);
  }
}
}  // namespace task

// ---- The bar: the reference's kernel ---------------------------------------------------------
namespace bar {
constexpr unsigned kThreads = 256, kPerThread = 8, kTile = kThreads * kPerThread, kBuffer = 4096;
constexpr unsigned kMergeAbove = kBuffer - kMaxK - kTile;

__device__ void bitonic_sort(float* sv, int* si, unsigned size) {
  for (unsigned run = 2; run <= size; run *= 2) {
    for (unsigned stride = run / 2; stride > 0; stride /= 2) {
      for (unsigned p = threadIdx.x; p < size / 2; p += kThreads) {
        const unsigned a = 2 * stride * (p / stride) + p % stride;
        compare_swap(sv, si, a, a + stride, (a & run) == 0);
      }
      __syncthreads();
    }
  }
}

__global__ void __launch_bounds__(kThreads) level(const float* __restrict__ in_values, const int* __restrict__ in_indices,
                                                  size_t m, size_t chunk, int k, float* __restrict__ out_values,
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
  float bar_value = -INFINITY;
  int bar_index = kNoIndex;
  const size_t begin = size_t(blockIdx.x) * chunk, end = begin + chunk < m ? begin + chunk : m;
  for (size_t tile = begin; tile < end; tile += kTile) {
    float x[kPerThread];
#pragma unroll
    for (unsigned j = 0; j < kPerThread; ++j) {
      const size_t p = tile + t + j * kThreads;
      x[j] = p < end ? in_values[p] : -INFINITY;
    }
#pragma unroll
    for (unsigned j = 0; j < kPerThread; ++j) {
      const size_t p = tile + t + j * kThreads;
      if (p < end && x[j] >= bar_value) {
        const int index = in_indices ? in_indices[p] : int(p);
        if (comes_before(x[j], index, bar_value, bar_index)) {
          const unsigned slot = k + atomicAdd(&appended, 1u);
          sv[slot] = x[j];
          si[slot] = index;
        }
      }
    }
    __syncthreads();
    const unsigned count = appended;
    __syncthreads();
    if (count > kMergeAbove || (count > 0 && tile + kTile >= end)) {
      unsigned size = 1;
      while (size < unsigned(k) + count) size *= 2;
      for (unsigned s = k + count + t; s < size; s += kThreads) {
        sv[s] = -INFINITY;
        si[s] = kNoIndex;
      }
      if (t == 0) appended = 0;
      __syncthreads();
      bitonic_sort(sv, si, size);
      bar_value = sv[k - 1];
      bar_index = si[k - 1];
    }
  }
  for (int r = t; r < k; r += kThreads) {
    out_values[size_t(blockIdx.x) * k + r] = sv[r];
    out_indices[size_t(blockIdx.x) * k + r] = si[r];
  }
}

// one_wave: a grid of resident blocks, each reading a whole number of tiles (the reference);
// otherwise one block per tile, as the task's levels have.
template <bool kOneWave>
void top_k(const float* d_values, float* sv, int* si, float* top_v, int* top_i, size_t n, int k) {
  static const size_t resident = bench::resident_blocks(level, kThreads);
  const size_t half = ((n + 1023) / 1024 + 1) * size_t(k);
  const float* in_v = d_values;
  const int* in_i = nullptr;
  for (size_t m = n, lvl = 0;; ++lvl) {
    size_t chunk = kTile;
    if (kOneWave) chunk = ((m + resident - 1) / resident + kTile - 1) / kTile * kTile;
    const size_t blocks = (m + chunk - 1) / chunk;
    float* out_v = blocks == 1 ? top_v : sv + (lvl % 2) * half;
    int* out_i = blocks == 1 ? top_i : si + (lvl % 2) * half;
    level<<<unsigned(blocks), kThreads>>>(in_v, in_i, m, chunk, k, out_v, out_i);
    if (blocks == 1) return;
    in_v = out_v;
    in_i = out_i;
    m = blocks * size_t(k);
  }
}
}  // namespace bar

bool same_answer(const float* d_top_v, const int* d_top_i, const std::vector<float>& want_v,
                 const std::vector<int>& want_i) {
  std::vector<float> v(want_v.size());
  std::vector<int> i(want_i.size());
  BENCH_CHECK(cudaMemcpy(v.data(), d_top_v, v.size() * sizeof(float), cudaMemcpyDeviceToHost));
  BENCH_CHECK(cudaMemcpy(i.data(), d_top_i, i.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return v == want_v && i == want_i;
}

void run(const bench::L2Flush& flush, size_t n, int k) {
  float *d_values = nullptr, *sv = nullptr, *top_v = nullptr;
  int *si = nullptr, *top_i = nullptr;
  const size_t scratch = 2 * ((n + 1023) / 1024 + 1) * size_t(k) + 1024;
  BENCH_CHECK(cudaMalloc(&d_values, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&sv, scratch * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&si, scratch * sizeof(int)));
  BENCH_CHECK(cudaMalloc(&top_v, k * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&top_i, k * sizeof(int)));
  bench::fill_floats<<<1024, 256>>>(d_values, n, 8);

  // The answer on the host: the first k indices in the order (larger value, then lower index).
  std::vector<float> host(n);
  BENCH_CHECK(cudaMemcpy(host.data(), d_values, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<int> order(n);
  for (size_t p = 0; p < n; ++p) order[p] = int(p);
  auto before = [&](int a, int b) { return host[a] > host[b] || (host[a] == host[b] && a < b); };
  std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
  std::vector<int> want_i(order.begin(), order.begin() + k);
  std::vector<float> want_v(k);
  for (int r = 0; r < k; ++r) want_v[r] = host[want_i[r]];

  std::printf("\nlab 8: top %d of %zu floats (bytes of the input / time)\n", k, n);
  double previous = 0;
  auto row = [&](const char* step, auto top_k) {
    const double ms = bench::median_ms(flush, [&] { top_k(d_values, sv, si, top_v, top_i, n, k); });
    bench::print_row(step, ms, double(n) * sizeof(float), previous, same_answer(top_v, top_i, want_v, want_i));
    previous = ms;
  };
  row("the task: every level sorts whole tiles of 2048", task::top_k);
  row("+ the bar, one block per tile (it never rises)", bar::top_k<false>);
  row("+ one wave of resident blocks, many tiles each (the reference)", bar::top_k<true>);
  for (void* p : {(void*)d_values, (void*)sv, (void*)si, (void*)top_v, (void*)top_i}) cudaFree(p);
}

}  // namespace lab8_steps
