// Lab 6's comparisons: one global atomic per byte, and CUB's HistogramEven.
#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <climits>

#include "baselines.h"
#include "wire/cuda_errors.h"

namespace cudalab::baselines {
namespace {

__global__ void naive_global_histogram(const uint8_t* in, unsigned* hist, size_t n) {
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&hist[in[i]], 1u);
}

int multiprocessors() {
  static int sms = [] {
    int device = 0, n = 0;
    require(cudaGetDevice(&device), "the naive histogram's device");
    require(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "the naive histogram's grid");
    return n;
  }();
  return sms;
}

}  // namespace

// A grid of every multiprocessor's worth of blocks, after clearing the 256 counters.
void naive_histogram(const uint8_t* in, unsigned* hist, size_t n) {
  require(cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned)), "clearing the naive histogram");
  naive_global_histogram<<<unsigned(multiprocessors()) * 8, 256>>>(in, hist, n);
}

void cub_histogram(const uint8_t* in, unsigned* hist, size_t n) {
  if (n > size_t(INT_MAX)) throw std::runtime_error("CUB's HistogramEven takes at most 2^31 - 1 bytes");
  size_t temp_bytes = 0;
  require(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, in, hist, 257, 0, 256, int(n)),
          "sizing CUB's histogram scratch");
  void* temp = scratch(1, temp_bytes);
  require(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, in, hist, 257, 0, 256, int(n)),
          "cub::DeviceHistogram::HistogramEven");
}

}  // namespace cudalab::baselines
