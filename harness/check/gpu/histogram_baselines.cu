#include "histogram_baselines.h"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <climits>

#include "cuda_errors.h"

namespace cudalab {
namespace {

__global__ void naive_global_histogram(const uint8_t* in, unsigned* hist, size_t n) {
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&hist[in[i]], 1u);
}

}  // namespace

Timing time_naive_histogram(const uint8_t* d_in, size_t n) {
  int device = 0, sms = 0;
  require(cudaGetDevice(&device), "the naive histogram's device");
  require(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "the naive histogram's grid");
  unsigned* hist = nullptr;
  require(cudaMalloc(&hist, 256 * sizeof(unsigned)), "allocating the naive histogram");
  Timing t = time_gpu([&] {
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned));
    naive_global_histogram<<<unsigned(sms) * 8, 256>>>(d_in, hist, n);
  });
  require(cudaGetLastError(), "the naive histogram");
  cudaFree(hist);
  return t;
}

Timing time_cub_histogram(const uint8_t* d_in, size_t n) {
  if (n > size_t(INT_MAX)) return Timing{};
  unsigned* hist = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  require(cudaMalloc(&hist, 256 * sizeof(unsigned)), "allocating CUB's histogram");
  require(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, d_in, hist, 257, 0, 256, int(n)),
          "sizing CUB's histogram scratch");
  require(cudaMalloc(&temp, temp_bytes), "allocating CUB's histogram scratch");
  Timing t = time_gpu([&] {
    require(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, d_in, hist, 257, 0, 256, int(n)),
            "cub::DeviceHistogram::HistogramEven");
  });
  cudaFree(temp);
  cudaFree(hist);
  return t;
}

}  // namespace cudalab
