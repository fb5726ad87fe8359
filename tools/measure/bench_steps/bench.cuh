// What every step benchmark shares: error checks, random inputs made on the device, the number
// of blocks resident at once, and the timing rule (CUDA events, warm-ups, L2 flushed, median).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define BENCH_CHECK(call)                                                                           \
  do {                                                                                              \
    const cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

namespace bench {

constexpr int kWarmups = 3;
constexpr int kRepeats = 20;

// A 64-bit mix of the element's index and a seed (splitmix64's finaliser): the same inputs every
// run, made where they are used, no host copy of hundreds of megabytes.
__host__ __device__ inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Random floats in [0.5, 1.5): never zero, so a lost element always shows.
__global__ void fill_floats(float* out, size_t n, uint64_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x)
    out[i] = 0.5f + float(mix(seed ^ i) >> 40) * (1.0f / float(1u << 24));
}
// Bytes: uniform, or skewed (half of them 0, nine in ten below 64), as lab 6's timing has them.
__global__ void fill_bytes(unsigned char* out, size_t n, uint64_t seed, bool skewed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x) {
    const uint64_t r = mix(seed ^ i);
    unsigned char b = (unsigned char)(r & 255);
    if (skewed) b = (r >> 8) % 2 == 0 ? 0 : (r >> 16) % 10 != 0 ? (unsigned char)(b % 64) : b;
    out[i] = b;
  }
}

// Blocks of `threads` threads of `kernel` resident at once on the whole GPU.
template <class Kernel>
size_t resident_blocks(Kernel kernel, unsigned threads) {
  int device = 0, sms = 0, per_sm = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return size_t(sms) * size_t(per_sm > 0 ? per_sm : 1);
}

// Writes a buffer larger than the L2 cache (50 MB on an H100), so a timed run reads its input
// from memory, as a first call would.
class L2Flush {
 public:
  L2Flush() { BENCH_CHECK(cudaMalloc(&buffer_, kBytes)); }
  ~L2Flush() { cudaFree(buffer_); }
  void operator()() const { BENCH_CHECK(cudaMemsetAsync(buffer_, int(++round_ & 255), kBytes)); }

 private:
  static constexpr size_t kBytes = size_t(256) << 20;
  void* buffer_ = nullptr;
  mutable unsigned round_ = 0;
};

// The median time of `run` in milliseconds: kWarmups untimed calls, then kRepeats calls each
// between two events, the L2 flushed before every call.
template <class Run>
double median_ms(const L2Flush& flush, Run run) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  for (int w = 0; w < kWarmups; ++w) {
    flush();
    run();
  }
  std::vector<float> ms(kRepeats);
  for (auto& m : ms) {
    flush();
    BENCH_CHECK(cudaEventRecord(start));
    run();
    BENCH_CHECK(cudaEventRecord(stop));
    BENCH_CHECK(cudaEventSynchronize(stop));
    BENCH_CHECK(cudaEventElapsedTime(&m, start, stop));
  }
  BENCH_CHECK(cudaGetLastError());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + kRepeats / 2, ms.end());
  return ms[kRepeats / 2];
}

// One row of a step table: what the step adds, its time, its rate, and against the row before.
inline void print_row(const std::string& step, double ms, double bytes, double previous_ms, bool correct) {
  std::printf("  %-58s %9.4f ms %7.0f GB/s", step.c_str(), ms, bytes / (ms * 1e6));
  if (previous_ms > 0) std::printf("  %5.2fx", previous_ms / ms);
  std::printf("%s\n", correct ? "" : "  WRONG ANSWER: this row's time means nothing");
}

}  // namespace bench
