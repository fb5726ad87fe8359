#include "checker/judging/fill_reference.h"

#include <cuda_runtime.h>

#include <vector>

#include "wire/fill.h"
#include "wire/fill_device.cuh"

namespace cudalab {
namespace {

constexpr unsigned kBlocks = 1024, kThreads = 256;

// Each block's sum and sum of magnitudes of values [begin, end), in double, into partial[2 b].
__global__ void range_sum_kernel(wire::Fill f, uint64_t key, uint64_t n, uint64_t begin, uint64_t end,
                                 double* partial) {
  double s = 0, a = 0;
  for (uint64_t i = begin + blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < end;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const float v = wire::value_at(f, key, i, n);
    s += v;
    a += fabs(double(v));
  }
  __shared__ double ss[kThreads], sa[kThreads];
  ss[threadIdx.x] = s;
  sa[threadIdx.x] = a;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      ss[threadIdx.x] += ss[threadIdx.x + w];
      sa[threadIdx.x] += sa[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[2 * blockIdx.x] = ss[0];
    partial[2 * blockIdx.x + 1] = sa[0];
  }
}

// A shared histogram per block, added into the 256 global counters once per bin.
__global__ void histogram_kernel(wire::Fill f, uint64_t key, uint64_t n, unsigned long long* counts) {
  __shared__ unsigned bins[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    atomicAdd(&bins[wire::integer_at(f, key, i, n, 255)], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
    if (bins[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(bins[b]));
}

// Device memory for `count` values of T, or nothing when there is no usable GPU; freed on return.
template <class T>
struct Scratch {
  T* p = nullptr;
  explicit Scratch(size_t count) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 || cudaMalloc(&p, count * sizeof(T)) != cudaSuccess) {
      p = nullptr;
      cudaGetLastError();  // a failure here is the host path's cue, not an error to carry on
    }
  }
  ~Scratch() {
    if (p) cudaFree(p);
  }
};

}  // namespace

bool device_range_sum(size_t n, const wire::Fill& fill, size_t begin, size_t end, double& sum, double& abs_sum) {
  Scratch<double> partial(2 * kBlocks);
  if (!partial.p) return false;
  range_sum_kernel<<<kBlocks, kThreads>>>(fill, wire::fill_key(fill), n, begin, end, partial.p);
  std::vector<double> host(2 * kBlocks);
  if (cudaMemcpy(host.data(), partial.p, host.size() * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  sum = abs_sum = 0;
  for (unsigned b = 0; b < kBlocks; ++b) {
    sum += host[2 * b];
    abs_sum += host[2 * b + 1];
  }
  return true;
}

bool device_histogram_of_fill(size_t n, const wire::Fill& fill, std::array<uint64_t, 256>& counts) {
  Scratch<unsigned long long> device_counts(256);
  if (!device_counts.p) return false;
  if (cudaMemset(device_counts.p, 0, 256 * sizeof(unsigned long long)) != cudaSuccess) return false;
  histogram_kernel<<<kBlocks, kThreads>>>(fill, wire::fill_key(fill), n, device_counts.p);
  unsigned long long host[256];
  if (cudaMemcpy(host, device_counts.p, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  for (int b = 0; b < 256; ++b) counts[size_t(b)] = host[b];
  return true;
}

}  // namespace cudalab
