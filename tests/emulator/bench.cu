// Emulator speed and memory (make bench-cpu). Not a test: it prints figures, it judges nothing.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "runner/emulator/control.h"  // the emulator's controls (found through -Iharness)

__global__ void tree_sum_256(const float* in, float* out, size_t n) {
  __shared__ float s[256];
  size_t i = blockIdx.x * size_t(256) + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// The same tree, its last warp unrolled on volatile shared memory (the classic, pre-Volta form):
// what warp lockstep costs, against tree_sum_256 (barriers all the way down).
__device__ void last_warp(volatile float* s, unsigned t) {
  s[t] += s[t + 32]; s[t] += s[t + 16]; s[t] += s[t + 8];
  s[t] += s[t + 4]; s[t] += s[t + 2]; s[t] += s[t + 1];
}
__global__ void tree_sum_256_volatile(const float* in, float* out, size_t n) {
  __shared__ float s[256];
  size_t i = blockIdx.x * size_t(256) + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 128; stride > 32; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x < 32) last_warp(s, threadIdx.x);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void saxpy(float a, const float* x, float* y, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void warp_sum(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

__global__ void big_block(float* out) {
  __shared__ float s[1024];
  s[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = s[1023 - threadIdx.x];
}

static double seconds(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the whole process: on a shared machine, wall time says more about the neighbours.
static double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void report(const char* what, size_t threads, double wall, double cpu) {
  int w = cudalab_cpu::control::worker_count();
  std::printf("  %-40s %6.3f s wall %6.1f M threads/s | %6.3f s CPU: %6.1f M threads/s per core, x%d cores = %6.1f M/s\n",
              what, wall, threads / wall / 1e6, cpu, threads / cpu / 1e6, w, threads / cpu / 1e6 * w);
}

__global__ void empty_kernel() {}
__global__ void touch_ends(const char* p, size_t bytes, char* out) { *out = p[0] + p[bytes - 1]; }

// What closing device memory to host code costs (control::run_host_code: every allocation
// PROT_NONE while the lab's host code runs; a kernel opens what it touches, for its launch),
// with lab 3's buffers at 2^27 + 1 elements (512 MB of input, every page present).
static void closed_memory_cost() {
  const size_t n = (size_t(1) << 27) + 1, guards = 4096 * sizeof(float), in_bytes = n * sizeof(float) + guards;
  char *in, *scratch, *sum;
  cudaMalloc(&in, in_bytes);
  cudaMalloc(&scratch, 2 * ((n + 1023) / 1024 + 1) * sizeof(float) + guards);
  cudaMalloc(&sum, sizeof(float) + guards);
  cudaMemset(in, 1, in_bytes);
  std::function<void()> body;
  auto host_code = [](void* f) { (*static_cast<std::function<void()>*>(f))(); };
  // The fastest of 3 runs of body, in ms, with device memory closed to it or not.
  auto timed = [&](bool closed) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      if (closed) cudalab_cpu::control::run_host_code(host_code, &body);
      else body();
      best = std::min(best, seconds(t0) * 1e3);
    }
    return best;
  };
  body = [] {};
  const double call_ms = timed(true);
  const int empty = 2000, touching = 20;
  body = [&] {
    for (int i = 0; i < empty; ++i) empty_kernel<<<1, 1>>>();
    cudaDeviceSynchronize();
  };
  const double empty_open = timed(false), empty_closed = timed(true);
  body = [&] {
    for (int i = 0; i < touching; ++i) touch_ends<<<1, 1>>>(in, in_bytes, sum);
    cudaDeviceSynchronize();
  };
  const double touch_open = timed(false);
  const unsigned long long changes = cudalab_cpu::control::protection_changes();
  const double touch_closed = timed(true);
  std::printf("  device memory closed to host code, lab 3's buffers at 2^27 + 1 (512 MB present):\n"
              "    a call's close and open again %.2f ms; an empty launch %+.2f us; a launch that touches the 512 MB "
              "input %+.2f ms (%.1f mprotect calls per call of %d)\n",
              call_ms, (empty_closed - call_ms - empty_open) / empty * 1e3,
              (touch_closed - call_ms - touch_open) / touching,
              double(cudalab_cpu::control::protection_changes() - changes) / 3, touching);
  cudaFree(in);
  cudaFree(scratch);
  cudaFree(sum);
}

static long vm_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(std::string(key).size()));
  return -1;
}

int main() {
  const size_t n = size_t(1) << 24;
  std::vector<float> h(n, 1.0f);
  float *x, *y, *sums;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&sums, (n / 256) * sizeof(float));
  cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  std::printf("cudalab CPU emulator benchmark: %d workers, 2^24 elements\n", cudalab_cpu::control::worker_count());
  // Address space of one 1024-thread block with a barrier (all 1024 threads live at once),
  // on one worker: run it first, alone, and compare the process's VmSize before and after.
  float* out;
  cudaMalloc(&out, 1024 * sizeof(float));
  long before = vm_kb("VmSize:"), rss_before = vm_kb("VmRSS:");
  big_block<<<1, 1024>>>(out);
  cudaDeviceSynchronize();
  long after = vm_kb("VmSize:"), rss_after = vm_kb("VmRSS:");
  std::printf("  one 1024-thread block with a barrier: +%.1f MB virtual, +%.1f MB resident (one worker)\n",
              (after - before) / 1024.0, (rss_after - rss_before) / 1024.0);

  // Warm-up launches create the fibers and touch the stacks once.
  tree_sum_256<<<n / 256, 256>>>(x, sums, n);
  saxpy<<<n / 256, 256>>>(1.0f, x, y, n);
  cudaDeviceSynchronize();

  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    tree_sum_256<<<n / 256, 256>>>(x, sums, n);
    cudaDeviceSynchronize();
    report("shared tree sum, 256-thread blocks:", n, seconds(t0), cpu_seconds() - c0);
  }
  std::vector<float> s(n / 256);
  cudaMemcpy(s.data(), sums, s.size() * sizeof(float), cudaMemcpyDeviceToHost);
  if (s[0] != 256.0f || s.back() != 256.0f) std::printf("  (wrong block sum: %f)\n", s[0]);

  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    tree_sum_256_volatile<<<n / 256, 256>>>(x, sums, n);
    cudaDeviceSynchronize();
    report("same, last warp on volatile (lockstep):", n, seconds(t0), cpu_seconds() - c0);
  }
  cudaMemcpy(s.data(), sums, s.size() * sizeof(float), cudaMemcpyDeviceToHost);
  if (s[0] != 256.0f || s.back() != 256.0f) std::printf("  (wrong block sum: %f)\n", s[0]);

  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    saxpy<<<n / 256, 256>>>(2.0f, x, y, n);
    cudaDeviceSynchronize();
    report("saxpy (no barrier), 256-thread blocks:", n, seconds(t0), cpu_seconds() - c0);
  }
  {
    float* total;
    cudaMalloc(&total, sizeof(float));
    cudaMemset(total, 0, sizeof(float));
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    warp_sum<<<n / 256, 256>>>(x, total, n);
    cudaDeviceSynchronize();
    report("warp shuffle sum (5 shuffles/thread):", n, seconds(t0), cpu_seconds() - c0);
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(sums);
  closed_memory_cost();
  closed_memory_cost();
  return 0;
}
