#include "topk_baselines.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_errors.h"

namespace cudalab {
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

__global__ void iota(int* out, size_t n) {
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = int(i);
}

}  // namespace

Timing time_naive_top_k(const float* d_values, size_t n, int k) {
  int device = 0, sms = 0;
  require(cudaGetDevice(&device), "the naive top-k's device");
  require(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "the naive top-k's grid");
  unsigned long long* keys = nullptr;  // keys[0] = above everything; keys[p + 1] = pass p's winner
  require(cudaMalloc(&keys, (size_t(k) + 1) * sizeof(unsigned long long)), "allocating the naive top-k");
  Timing t = time_gpu([&] {
    cudaMemsetAsync(keys, 0xFF, sizeof(unsigned long long));
    cudaMemsetAsync(keys + 1, 0, size_t(k) * sizeof(unsigned long long));
    for (int p = 0; p < k; ++p) next_in_order<<<unsigned(sms) * 4, 512>>>(d_values, n, keys + p, keys + p + 1);
  });
  require(cudaGetLastError(), "the naive top-k");
  cudaFree(keys);
  return t;
}

Timing time_cub_sort_top_k(const float* d_values, size_t n, int k) {
  float* keys_out = nullptr;
  int *indices = nullptr, *indices_out = nullptr, *top_indices = nullptr;
  float* top_values = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  require(cudaMalloc(&keys_out, n * sizeof(float)), "allocating CUB's sorted values");
  require(cudaMalloc(&indices, n * sizeof(int)), "allocating CUB's indices");
  require(cudaMalloc(&indices_out, n * sizeof(int)), "allocating CUB's sorted indices");
  require(cudaMalloc(&top_values, size_t(k) * sizeof(float)), "allocating CUB's top-k");
  require(cudaMalloc(&top_indices, size_t(k) * sizeof(int)), "allocating CUB's top-k");
  iota<<<1024, 256>>>(indices, n);
  require(cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, d_values, keys_out, indices, indices_out, int(n)),
          "sizing CUB's sort scratch");
  require(cudaMalloc(&temp, temp_bytes), "allocating CUB's sort scratch");
  Timing t = time_gpu([&] {
    require(cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, d_values, keys_out, indices, indices_out, int(n)),
            "cub::DeviceRadixSort::SortPairsDescending");
    cudaMemcpyAsync(top_values, keys_out, size_t(k) * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpyAsync(top_indices, indices_out, size_t(k) * sizeof(int), cudaMemcpyDeviceToDevice);
  });
  require(cudaGetLastError(), "CUB's sort top-k");
  for (void* p : {static_cast<void*>(keys_out), static_cast<void*>(indices), static_cast<void*>(indices_out),
                  static_cast<void*>(top_values), static_cast<void*>(top_indices), temp})
    cudaFree(p);
  return t;
}

}  // namespace cudalab
