// build: plain race
// Honest: what real students write and the contract used to refuse. A helper with a C library's
// name but C++ parameters (an overload of the file's own), host new[]/delete[] and std::vector,
// two streams of its own with events, and copies between its own device buffers.
// expect-exit: 0
#include <vector>
#include "cudalab/lab3.h"

static int ceil(int a, int b) { return (a + b - 1) / b; }
__device__ float write(float* out, float v) { return *out = v; }

__global__ void partial_sums(const float* in, float* out, size_t n) {
  __shared__ float s[256];
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) write(&out[blockIdx.x], s[0]);
}

namespace lab3 {
void multilevel_sum(const float* in, float* scratch, float* sum, size_t n) {
  std::vector<size_t> sizes;
  for (size_t m = n; m > 1; m = size_t(ceil(int(m), 256))) sizes.push_back(m);
  int* levels = new int[sizes.size() + 1];
  levels[0] = int(sizes.size());
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaEvent_t done;
  cudaEventCreate(&done);
  const float* from = in;
  float* to = scratch;
  size_t m = n;
  while (m > 1) {
    const unsigned blocks = unsigned(ceil(int(m), 256));
    partial_sums<<<blocks, 256, 0, a>>>(from, to, m);
    from = to;
    to += blocks;
    m = blocks;
  }
  cudaEventRecord(done, a);
  cudaStreamWaitEvent(b, done, 0);
  cudaMemcpyAsync(sum, from, sizeof(float), cudaMemcpyDeviceToDevice, b);
  cudaStreamSynchronize(b);
  cudaEventDestroy(done);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  delete[] levels;
}
}  // namespace lab3
