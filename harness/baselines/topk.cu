// Lab 8's comparisons: k passes over the values, and CUB's full radix sort (CUB has no top-k).
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "baselines.h"
#include "wire/cuda_errors.h"

namespace cudalab::baselines {
namespace {

// Float bits whose unsigned order is the float order (negatives flipped, positives' sign set).
__device__ __forceinline__ uint32_t ordered_bits(float v) {
  const uint32_t b = __float_as_uint(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// (value, index) as one 64-bit key: larger key = earlier in lab 8's order.
__device__ __forceinline__ unsigned long long order_key(float v, size_t i) {
  return (static_cast<unsigned long long>(ordered_bits(v)) << 32) | (0xFFFFFFFFull - i);
}

// One pass: the largest key below `below` (the previous pass's winner), into *best.
__global__ void next_in_order(const float* values, size_t n, const unsigned long long* below,
                              unsigned long long* best) {
  const unsigned long long limit = *below;
  unsigned long long mine = 0;
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned long long key = order_key(values[i], i);
    if (key < limit && key > mine) mine = key;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, mine, offset);
    if (other > mine) mine = other;
  }
  __shared__ unsigned long long warp_best[32];
  if (threadIdx.x % 32 == 0) warp_best[threadIdx.x / 32] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < blockDim.x / 32; ++w)
      if (warp_best[w] > mine) mine = warp_best[w];
    atomicMax(best, mine);
  }
}

// The k winners' keys back into values and indices (the inverse of order_key).
__global__ void keys_to_top(const unsigned long long* keys, int k, const float* values, float* top_values,
                            int* top_indices) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= k) return;
  const int64_t index = int64_t(0xFFFFFFFFull - (keys[p] & 0xFFFFFFFFull));
  top_indices[p] = int(index);
  top_values[p] = values[index];
}

__global__ void iota(int* out, size_t n) {
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = int(i);
}

int multiprocessors() {
  static int sms = [] {
    int device = 0, n = 0;
    require(cudaGetDevice(&device), "the naive top-k's device");
    require(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "the naive top-k's grid");
    return n;
  }();
  return sms;
}

}  // namespace

void naive_top_k(const float* values, size_t n, int k, float* top_values, int* top_indices) {
  // keys[0] = above everything; keys[p + 1] = pass p's winner.
  auto* keys = static_cast<unsigned long long*>(scratch(0, (size_t(k) + 1) * sizeof(unsigned long long)));
  require(cudaMemsetAsync(keys, 0xFF, sizeof(unsigned long long)), "the naive top-k's first bound");
  require(cudaMemsetAsync(keys + 1, 0, size_t(k) * sizeof(unsigned long long)), "clearing the naive top-k");
  for (int p = 0; p < k; ++p)
    next_in_order<<<unsigned(multiprocessors()) * 4, 512>>>(values, n, keys + p, keys + p + 1);
  keys_to_top<<<(k + 255) / 256, 256>>>(keys + 1, k, values, top_values, top_indices);
}

// Every (value, index) pair sorted, then the first k. The sort is stable, so equal values keep
// ascending indices, as lab 8's order wants.
void cub_sort_top_k(const float* values, size_t n, int k, float* top_values, int* top_indices) {
  if (n > size_t(INT_MAX)) throw std::runtime_error("CUB's radix sort takes at most 2^31 - 1 pairs");
  static size_t indexed = 0;  // the indices 0..n-1 are made once per size: the sort only reads them
  auto* keys_out = static_cast<float*>(scratch(0, n * sizeof(float)));
  auto* indices = static_cast<int*>(scratch(1, n * sizeof(int)));
  auto* indices_out = static_cast<int*>(scratch(2, n * sizeof(int)));
  if (indexed != n) {
    iota<<<1024, 256>>>(indices, n);
    indexed = n;
  }
  size_t temp_bytes = 0;
  require(
      cub::DeviceRadixSort::SortPairsDescending(nullptr, temp_bytes, values, keys_out, indices, indices_out, int(n)),
      "sizing CUB's sort scratch");
  void* temp = scratch(3, temp_bytes);
  require(cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, values, keys_out, indices, indices_out, int(n)),
          "cub::DeviceRadixSort::SortPairsDescending");
  require(cudaMemcpyAsync(top_values, keys_out, size_t(k) * sizeof(float), cudaMemcpyDeviceToDevice), "CUB's top k");
  require(cudaMemcpyAsync(top_indices, indices_out, size_t(k) * sizeof(int), cudaMemcpyDeviceToDevice), "CUB's top k");
}

}  // namespace cudalab::baselines
