// cudalab's emulator against HIP-CPU on the same kernels (below), every check of the
// emulator on (bounds guards, barrier divergence, lockstep; the race detector off, as in make
// labN). Built twice by make bench-hipcpu: here as a lab file is (BACKEND=cpu), and with HIP-CPU
// (CUDALAB_COMPARE_HIPCPU: its hip_runtime.h, launches through hipLaunchKernelGGL). Not a test:
// it prints each kernel's best of 5 runs, wall and CPU time, and checks the sums.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#if defined(CUDALAB_COMPARE_HIPCPU)
#include <hip/hip_runtime.h>
#define LAUNCH(kernel, grid, block, ...) hipLaunchKernelGGL(kernel, dim3(grid), dim3(block), 0, 0, __VA_ARGS__)
#define SYNC() (void)hipDeviceSynchronize()
#define MALLOC(p, bytes) (void)hipMalloc(&(p), (bytes))
#define TO_DEVICE(d, h, bytes) (void)hipMemcpy((d), (h), (bytes), hipMemcpyHostToDevice)
#define TO_HOST(h, d, bytes) (void)hipMemcpy((h), (d), (bytes), hipMemcpyDeviceToHost)
constexpr const char* kName = "HIP-CPU";
#else
#define LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)
#define SYNC() (void)cudaDeviceSynchronize()
#define MALLOC(p, bytes) (void)cudaMalloc(&(p), (bytes))
#define TO_DEVICE(d, h, bytes) (void)cudaMemcpy((d), (h), (bytes), cudaMemcpyHostToDevice)
#define TO_HOST(h, d, bytes) (void)cudaMemcpy((h), (d), (bytes), cudaMemcpyDeviceToHost)
constexpr const char* kName = "cudalab";
#endif

// The kernels, the same source for both. What differs is spelled once here: a warp (CUDA's 32
// lanes with a mask, HIP-CPU's 64, its warpSize) and its shuffle.
#if defined(CUDALAB_COMPARE_HIPCPU)
constexpr unsigned kWarp = 64;
#define COMPARE_SHFL_DOWN(v, o) __shfl_down((v), (o))
#else
constexpr unsigned kWarp = 32;
#define COMPARE_SHFL_DOWN(v, o) __shfl_down_sync(0xffffffffu, (v), (o))
#endif

// A block's tree in shared memory, a __syncthreads() after every step: BLOCK threads, one
// element each, one partial sum per block.
template <unsigned BLOCK>
__global__ void tree_sum(const float* in, float* out, size_t n) {
  __shared__ float s[BLOCK];
  const size_t i = blockIdx.x * size_t(BLOCK) + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// No barrier, no shared memory: what a thread costs by itself.
__global__ void saxpy(float a, const float* x, float* y, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Each warp's sum by shuffles, written by its first lane: one partial sum per warp.
__global__ void warp_sum(const float* in, float* out, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (unsigned o = kWarp / 2; o > 0; o >>= 1) v += COMPARE_SHFL_DOWN(v, o);
  if (threadIdx.x % kWarp == 0) out[i / kWarp] = v;
}

namespace {

double cpu_seconds() {  // the whole process: on a shared machine, wall time says more about the neighbours
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Best of 5 of `run` (a launch and its wait), after one run to warm up.
template <typename F>
void time_it(const char* what, size_t threads, F run) {
  run();
  double wall = 1e30, cpu = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    run();
    cpu = std::min(cpu, cpu_seconds() - c0);
    wall = std::min(wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("%-8s %-34s %7.3f s wall %7.3f s CPU  %7.1f M threads per CPU second\n", kName, what, wall, cpu,
              threads / cpu / 1e6);
}

bool all_equal(const std::vector<float>& v, float want) {
  return std::all_of(v.begin(), v.end(), [&](float x) { return x == want; });
}

}  // namespace

int main() {
  const size_t n = size_t(1) << 24;
  std::vector<float> ones(n, 1.0f);
  float *x, *y, *sums;
  MALLOC(x, n * sizeof(float));
  MALLOC(y, n * sizeof(float));
  MALLOC(sums, n / 32 * sizeof(float));
  TO_DEVICE(x, ones.data(), n * sizeof(float));
  TO_DEVICE(y, ones.data(), n * sizeof(float));
  bool right = true;

  time_it("tree sum, 256-thread blocks", n, [&] { LAUNCH(tree_sum<256>, n / 256, 256, x, sums, n); SYNC(); });
  std::vector<float> s(n / 256);
  TO_HOST(s.data(), sums, s.size() * sizeof(float));
  right &= all_equal(s, 256.0f);

  time_it("tree sum, 1024-thread blocks", n, [&] { LAUNCH(tree_sum<1024>, n / 1024, 1024, x, sums, n); SYNC(); });
  s.resize(n / 1024);
  TO_HOST(s.data(), sums, s.size() * sizeof(float));
  right &= all_equal(s, 1024.0f);

  time_it("saxpy, 256-thread blocks", n, [&] { LAUNCH(saxpy, n / 256, 256, 0.0f, x, y, n); SYNC(); });
  s.resize(n);
  TO_HOST(s.data(), y, n * sizeof(float));
  right &= all_equal(s, 1.0f);

  time_it("warp shuffle sums, 256-thread blocks", n, [&] { LAUNCH(warp_sum, n / 256, 256, x, sums, n); SYNC(); });
  s.resize(n / kWarp);
  TO_HOST(s.data(), sums, s.size() * sizeof(float));
  right &= all_equal(s, float(kWarp));

  std::printf("%-8s %s\n", kName, right ? "every sum right" : "WRONG SUMS");
  return right ? 0 : 1;
}
