// The sum labs' comparisons (1, 2, 3, 7): the naive interleaved tree and CUB's reduction.
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include "baselines.h"
#include "wire/cuda_errors.h"

namespace cudalab::baselines {
namespace {

constexpr unsigned kNaiveBlock = 1024;

// Block b sums data[b*1024, ...) in place; thread 0 writes the block's sum to out[b].
__global__ void naive_interleaved(float* data, float* out, size_t n) {
  size_t base = size_t(blockIdx.x) * blockDim.x;
  unsigned tid = threadIdx.x;
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0 && base + tid + s < n) data[base + tid] += data[base + tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[base];
}

}  // namespace

void naive_interleaved_sum(float* in, float* out, size_t n) {
  // Two regions for the levels' partial sums, taking turns; the last level writes *out.
  const size_t room = (n + kNaiveBlock - 1) / kNaiveBlock + 1;
  float* const partials = static_cast<float*>(scratch(0, 2 * room * sizeof(float)));
  float* const region[2] = {partials, partials + room};
  float* level_in = in;
  size_t m = n;
  for (int level = 0;; ++level) {
    const unsigned blocks = unsigned((m + kNaiveBlock - 1) / kNaiveBlock);
    float* level_out = blocks == 1 ? out : region[level % 2];
    naive_interleaved<<<blocks, kNaiveBlock>>>(level_in, level_out, m);
    if (blocks == 1) return;
    level_in = level_out;
    m = blocks;
  }
}

void cub_sum(const float* in, float* out, size_t n) {
  size_t temp_bytes = 0;
  require(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, n), "sizing CUB's scratch");
  void* temp = scratch(1, temp_bytes);
  require(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n), "cub::DeviceReduce::Sum");
}

}  // namespace cudalab::baselines
