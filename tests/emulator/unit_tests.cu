// Emulator unit tests: this file goes through the same rewrite and shim as a lab file.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#define DOCTEST_CONFIG_NO_POSIX_SIGNALS  // the emulator handles faults inside kernels itself
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "runner/emulator/control.h"  // the emulator's controls (found through -Iharness)

// ---- helpers ----------------------------------------------------------------------------
template <class T>
struct DeviceArray {
  T* p = nullptr;
  size_t n;
  explicit DeviceArray(size_t count, int fill = 0) : n(count) {
    REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
    cudaMemset(p, fill, n * sizeof(T));
  }
  ~DeviceArray() { cudaFree(p); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return h;
  }
  void put(const std::vector<T>& h) { REQUIRE(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess); }
};

// ---- indices and launch shapes ---------------------------------------------------------------
__global__ void write_ids(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

struct Seen {
  unsigned tx, ty, tz, bx, by, bz, dx, dy, dz, gx, gy, gz;
};
__global__ void record_3d(Seen* out) {
  unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned g = block * (blockDim.x * blockDim.y * blockDim.z) + thread;
  out[g] = Seen{threadIdx.x, threadIdx.y, threadIdx.z, blockIdx.x, blockIdx.y, blockIdx.z,
                blockDim.x, blockDim.y, blockDim.z, gridDim.x, gridDim.y, gridDim.z};
}

TEST_CASE("1-D indices with a partial last block") {
  const int n = 1000;
  DeviceArray<int> d(n, 0xff);
  write_ids<<<(n + 255) / 256, 256>>>(d.p, n);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto h = d.get();
  for (int i = 0; i < n; ++i) REQUIRE(h[i] == i);
}

TEST_CASE("2-D and 3-D grids and blocks") {
  for (auto [grid, block] : {std::pair{dim3(3, 2, 2), dim3(4, 3, 2)}, std::pair{dim3(5, 7), dim3(16, 16)},
                             std::pair{dim3(2, 1, 3), dim3(1, 1, 64)}}) {
    size_t threads = size_t(grid.x) * grid.y * grid.z * block.x * block.y * block.z;
    DeviceArray<Seen> d(threads);
    record_3d<<<grid, block>>>(d.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto h = d.get();
    size_t g = 0;
    for (unsigned bz = 0; bz < grid.z; ++bz)
      for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx)
          for (unsigned tz = 0; tz < block.z; ++tz)
            for (unsigned ty = 0; ty < block.y; ++ty)
              for (unsigned tx = 0; tx < block.x; ++tx, ++g) {
                const Seen& s = h[g];
                REQUIRE(s.tx == tx); REQUIRE(s.ty == ty); REQUIRE(s.tz == tz);
                REQUIRE(s.bx == bx); REQUIRE(s.by == by); REQUIRE(s.bz == bz);
                REQUIRE(s.dx == block.x); REQUIRE(s.dy == block.y); REQUIRE(s.dz == block.z);
                REQUIRE(s.gx == grid.x); REQUIRE(s.gy == grid.y); REQUIRE(s.gz == grid.z);
              }
  }
}

TEST_CASE("bad launch configurations set cudaErrorInvalidConfiguration, like CUDA") {
  DeviceArray<int> d(4);
  write_ids<<<1, 1025>>>(d.p, 4);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);  // cleared by reading it
  write_ids<<<0, 32>>>(d.p, 4);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  write_ids<<<dim3(1, 70000), 32>>>(d.p, 4);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  write_ids<<<1, dim3(2, 2, 65)>>>(d.p, 4);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  write_ids<<<1, 4>>>(d.p, 4);  // and the next good launch runs
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(d.get() == std::vector<int>{0, 1, 2, 3});
}

// ---- barriers and shared memory -------------------------------------------------------------
template <int B>
__global__ void tree_sum(const float* in, float* out, int n) {
  __shared__ float s[B];
  int i = blockIdx.x * B + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = B / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

TEST_CASE("__syncthreads: a shared-memory tree sum is exact") {
  const int n = 100000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i % 7);
  DeviceArray<float> in(n), out((n + 255) / 256);
  in.put(h);
  tree_sum<256><<<(n + 255) / 256, 256>>>(in.p, out.p, n);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto r = out.get();
  for (size_t b = 0; b < r.size(); ++b) {
    float want = 0;
    for (int i = int(b) * 256; i < std::min(n, int(b + 1) * 256); ++i) want += h[i];
    REQUIRE(r[b] == want);
  }
}

__global__ void barrier_reductions(int* out) {
  int t = threadIdx.x;
  int c = __syncthreads_count(t % 3 == 0);
  int a = __syncthreads_and(t < 1000);
  int a2 = __syncthreads_and(t != 5);
  int o = __syncthreads_or(t == 77);
  int o2 = __syncthreads_or(0);
  if (t == 0) out += 5 * blockIdx.x, out[0] = c, out[1] = a, out[2] = a2, out[3] = o, out[4] = o2;
}

TEST_CASE("__syncthreads_count / _and / _or") {
  DeviceArray<int> d(15);
  barrier_reductions<<<3, 300>>>(d.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto r = d.get();
  for (int b = 0; b < 3; ++b) CHECK(std::vector<int>(r.begin() + 5 * b, r.begin() + 5 * b + 5) == std::vector<int>{100, 1, 0, 1, 0});
}

__global__ void reverse_in_block(int* data) {
  extern __shared__ int s[];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  s[t] = data[base + t];
  __syncthreads();
  data[base + t] = s[blockDim.x - 1 - t];
}

TEST_CASE("extern __shared__ sized at launch") {
  const int B = 200, G = 7;
  std::vector<int> h(B * G);
  std::iota(h.begin(), h.end(), 0);
  DeviceArray<int> d(h.size());
  d.put(h);
  reverse_in_block<<<G, B, B * sizeof(int)>>>(d.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto r = d.get();
  for (int b = 0; b < G; ++b)
    for (int t = 0; t < B; ++t) REQUIRE(r[b * B + t] == h[b * B + B - 1 - t]);
}

__global__ void write_first(int* out) {
  extern __shared__ int staged[];
  staged[threadIdx.x] = int(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = staged[0] + 7;
}

TEST_CASE("dynamic shared memory past 48 KiB needs the kernel's attribute raised first, as on a GPU") {
  DeviceArray<int> d(1);
  write_first<<<1, 32, 64 * 1024>>>(d.p);  // no attribute: refused
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  write_first<<<1, 32, 48 * 1024>>>(d.p);  // 48 KiB needs none
  CHECK(cudaGetLastError() == cudaSuccess);
  // Past the opt-in limit (227 KiB) the attribute itself is refused.
  CHECK(cudaFuncSetAttribute(write_first, cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFuncSetAttribute(&write_first, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024) == cudaSuccess);
  write_first<<<1, 32, 64 * 1024>>>(d.p);  // raised: runs
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(d.get() == std::vector<int>{7});
  write_first<<<1, 32, 64 * 1024 + 4>>>(d.p);  // past the attribute: refused again
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  write_first<<<1, 32, 228 * 1024>>>(d.p);  // past what any block gets
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}

__global__ void transpose_tile(const float* in, float* out, int n) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

TEST_CASE("static 2-D __shared__ tile: transpose with 32x8 blocks") {
  const int n = 77;
  std::vector<float> h(n * n);
  std::iota(h.begin(), h.end(), 0.0f);
  DeviceArray<float> in(n * n), out(n * n);
  in.put(h);
  transpose_tile<<<dim3((n + 31) / 32, (n + 31) / 32), dim3(32, 8)>>>(in.p, out.p, n);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto r = out.get();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) REQUIRE(r[j * n + i] == h[i * n + j]);
}

// ---- warp operations -------------------------------------------------------------------------
__global__ void warp_ops(int* out) {
  int t = threadIdx.x, lane = t & 31;
  int v = t + 1;
  int sum = v;
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffff, sum, o);
  int all = v;
  for (int o = 1; o < 32; o <<= 1) all += __shfl_xor_sync(0xffffffff, all, o);
  int from5 = __shfl_sync(0xffffffff, v, 5);
  int up = __shfl_up_sync(0xffffffff, v, 1);
  int seg = __shfl_down_sync(0xffffffff, v, 8, 16);  // within 16-lane segments
  unsigned odd = __ballot_sync(0xffffffff, lane & 1);
  int any = __any_sync(0xffffffff, lane == 31);
  int every = __all_sync(0xffffffff, lane < 31);
  int* o = out + t * 8;
  o[0] = sum, o[1] = all, o[2] = from5, o[3] = up, o[4] = seg, o[5] = int(odd), o[6] = any, o[7] = every;
}

TEST_CASE("warp shuffles, ballot, any, all") {
  const int T = 64;
  DeviceArray<int> d(T * 8);
  warp_ops<<<1, T>>>(d.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto r = d.get();
  for (int t = 0; t < T; ++t) {
    int lane = t % 32, w = t / 32, first = w * 32 + 1;
    const int* o = &r[t * 8];
    int warp_total = 32 * first + 31 * 32 / 2;
    if (lane == 0) CHECK(o[0] == warp_total);
    CHECK(o[1] == warp_total);
    CHECK(o[2] == w * 32 + 6);
    CHECK(o[3] == (lane == 0 ? t + 1 : t));
    CHECK(o[4] == ((lane % 16) + 8 < 16 ? t + 9 : t + 1));
    CHECK(unsigned(o[5]) == 0xaaaaaaaau);
    CHECK(o[6] == 1);
    CHECK(o[7] == 0);
  }
}

__global__ void partial_warp_sum(int* out) {
  int v = 1;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  __syncwarp();
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}

TEST_CASE("a block of 48 threads: the second warp has 16 lanes and no lanes to wait for") {
  DeviceArray<int> d(2);
  partial_warp_sum<<<1, 48>>>(d.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto r = d.get();
  CHECK(r[0] == 32);
  CHECK(r[1] >= 16);  // lanes past the end return the caller's own value (undefined on a GPU)
}

// ---- atomics --------------------------------------------------------------------------------
__device__ float atomic_add_by_cas(float* p, float v) {
  int* q = reinterpret_cast<int*>(p);
  int old = atomicAdd(q, 0), assumed;  // a plain *q would race with the other threads' CAS (CHECK=race says so)
  do {
    assumed = old;
    old = atomicCAS(q, assumed, __float_as_int(__int_as_float(assumed) + v));
  } while (assumed != old);
  return __int_as_float(old);
}

__global__ void contend(int* count, unsigned long long* big, float* f, float* fc, int* mx, unsigned* ring) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(count, 1);
  atomicAdd(big, 1ull << 20);
  atomicAdd(f, 1.0f);
  atomic_add_by_cas(fc, 1.0f);
  atomicMax(mx, i);
  atomicInc(ring, 999u);
}

TEST_CASE("atomics stay exact under contention from every worker") {
  const int G = 512, B = 256, N = G * B;
  DeviceArray<int> count(1), mx(1);
  DeviceArray<unsigned long long> big(1);
  DeviceArray<float> f(1), fc(1);
  DeviceArray<unsigned> ring(1);
  contend<<<G, B>>>(count.p, big.p, f.p, fc.p, mx.p, ring.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(count.get()[0] == N);
  CHECK(big.get()[0] == (unsigned long long)N << 20);
  CHECK(f.get()[0] == float(N));   // exact: N < 2^24
  CHECK(fc.get()[0] == float(N));
  CHECK(mx.get()[0] == N - 1);
  CHECK(ring.get()[0] == unsigned(N % 1000));
}

// ---- the rewrite step ------------------------------------------------------------------------
template <class T, int N>
struct Pack {
  T v[N];
};
template <class P, int Scale>
__global__ void nested_template(int* out, P p) {
  out[threadIdx.x] = p.v[threadIdx.x % 2] * Scale;
}
template <class T>
__global__ void deduced(T* out, T value) { out[threadIdx.x] = value; }
namespace inner {
__global__ void in_namespace(int* out) { out[0] = 42; }
}

TEST_CASE("rewrite: templates, nested template arguments, deduction, namespaces, launches over lines") {
  DeviceArray<int> d(4);
  nested_template<Pack<int, 2>, (3 > 2) + 1><<<1, 4>>>(d.p, Pack<int, 2>{{5, 7}});
  CHECK(d.get() == std::vector<int>{10, 14, 10, 14});
  deduced<<<1, 4>>>(d.p, 9);
  CHECK(d.get() == std::vector<int>{9, 9, 9, 9});
  ::inner::in_namespace<<<1, 1>>>(d.p);
  CHECK(d.get()[0] == 42);
  const int line_before = __LINE__;
  deduced<int>
      <<<dim3(1,
              1),  // a comment inside the configuration <<< >>>
         2 /* and another */>>>(d.p,
                                 3);
  int line_after = __LINE__;
  CHECK(line_after == line_before + 6);  // the launch above kept its line breaks
  CHECK(d.get() == std::vector<int>{3, 3, 9, 9});
  const char* text = "k<<<1, 1>>>(x) stays a string";  // and a comment: k<<<1,1>>>();
  CHECK(std::string(text) == std::string("k<<<1, 1>>>(x) stays a string"));
  CHECK(std::string("<<<") + ">>>" == "<<<>>>");
  char c = '<';
  int million = 1'000'000;
  CHECK(c == '<');
  CHECK(million == 1000000);
  auto fp = deduced<int>;
  fp<<<1, 1>>>(d.p, 8);
  CHECK(d.get()[0] == 8);
}

// ---- schedules ---------------------------------------------------------------------------------
__global__ void arrival_order(int* order, int* next) {
  order[atomicAdd(next, 1)] = threadIdx.x;
  __syncthreads();
  order[atomicAdd(next, 1)] = threadIdx.x;
}

static std::vector<int> order_under(const char* schedule) {
  REQUIRE(cudalab_cpu::control::set_schedule(schedule));
  DeviceArray<int> order(128), next(1);
  arrival_order<<<1, 64>>>(order.p, next.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  cudalab_cpu::control::set_schedule("in-order");
  return order.get();
}

TEST_CASE("--schedule: in-order, reverse and random:SEED change the order between barriers") {
  auto in = order_under("in-order");
  auto rev = order_under("reverse");
  auto r1 = order_under("random:1");
  auto r1b = order_under("random:1");
  auto r2 = order_under("random:2");
  CHECK(in[0] == 0);
  CHECK(in[63] == 63);
  CHECK(in[64] == 0);
  CHECK(rev[0] == 63);
  CHECK(rev[64] == 63);
  CHECK(r1 == r1b);  // a seed replays
  CHECK(r1 != r2);
  CHECK(r1 != in);
  std::vector<int> first(r1.begin(), r1.begin() + 64);
  std::sort(first.begin(), first.end());
  for (int i = 0; i < 64; ++i) CHECK(first[i] == i);  // each thread exactly once per phase
  CHECK_FALSE(cudalab_cpu::control::set_schedule("sideways"));
}

// Each block records the order its threads start in, and the order they leave a barrier in.
// With hold set, block 0 waits until block 1 has finished, so that block 1 must run on the
// other worker, as the first block that worker runs (needs 2 workers or it would never end).
__global__ void block_arrival_order(int* order, int* next, bool hold) {
  int* mine = order + 2 * blockDim.x * blockIdx.x;
  int* count = next + blockIdx.x;
  mine[atomicAdd(count, 1)] = threadIdx.x;
  if (hold && blockIdx.x == 0 && threadIdx.x == 0)
    while (atomicAdd(next + 1, 0) < int(2 * blockDim.x)) {
    }
  __syncthreads();
  mine[atomicAdd(count, 1)] = threadIdx.x;
}

static std::vector<int> block_orders_under(const char* schedule, int workers) {
  const int blocks = 24, threads = 64;
  cudalab_cpu::control::set_worker_count(workers);
  REQUIRE(cudalab_cpu::control::set_schedule(schedule));
  DeviceArray<int> order(2 * blocks * threads), next(blocks);
  block_arrival_order<<<blocks, threads>>>(order.p, next.p, workers > 1);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  cudalab_cpu::control::set_schedule("in-order");
  cudalab_cpu::control::set_worker_count(0);
  return order.get();
}

TEST_CASE("random:SEED replays per block, whichever worker runs the block") {
  // On one worker block 1 follows block 0; on two it runs first on its worker. A block's order
  // must not depend on the blocks its worker ran before it.
  auto one = block_orders_under("random:7", 1);
  for (int run = 0; run < 3; ++run) CHECK(block_orders_under("random:7", 2) == one);
  CHECK(block_orders_under("random:8", 2) != one);
  // Blocks differ from each other too: the seed mixes in the block index.
  CHECK(!std::equal(one.begin(), one.begin() + 128, one.begin() + 128));
}

// ---- diagnosis instead of a hang -------------------------------------------------------------------
constexpr int kSplitFirst = __LINE__ + 3, kSplitSecond = __LINE__ + 5;
__global__ void split_barrier(int* out) {
  if (threadIdx.x < 32) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

constexpr int kShuffleLine = __LINE__ + 3;
__global__ void lane_returns(int* out) {
  if (threadIdx.x == 31) return;
  int v = __shfl_down_sync(0xffffffff, int(threadIdx.x), 1);
  out[threadIdx.x] = v;
}

__global__ void early_exit_barrier(int* out, int n) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t >= n) return;
  s[t] = t;
  __syncthreads();
  out[t] = s[n - 1 - t];
}

TEST_CASE("threads at different __syncthreads(): an error naming the block, counts and lines") {
  DeviceArray<int> d(64);
  split_barrier<<<2, 64>>>(d.p);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string msg = cudaGetErrorString(cudaErrorLaunchFailure);
  CHECK(msg.find("different __syncthreads()") != std::string::npos);
  CHECK(msg.find("32 threads (threadIdx.x 0-31) at tests/emulator/unit_tests.cu:" + std::to_string(kSplitFirst)) != std::string::npos);
  CHECK(msg.find("32 threads (threadIdx.x 32-63) at tests/emulator/unit_tests.cu:" + std::to_string(kSplitSecond)) != std::string::npos);
  CHECK(msg.find("block ") != std::string::npos);
  // As on a GPU, the context is lost: every later wait says so, and no kernel runs, until
  // cudaDeviceReset(); then the next kernel runs.
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  write_ids<<<1, 64>>>(d.p, 64);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
  write_ids<<<1, 64>>>(d.p, 64);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d.get()[63] == 63);
}

TEST_CASE("a warp shuffle some lane never reaches: an error naming the lanes and the line") {
  DeviceArray<int> d(32);
  cudaDeviceReset();  // clear what an earlier test left
  lane_returns<<<1, 32>>>(d.p);
  CHECK(cudaGetLastError() == cudaSuccess);  // the launch itself was fine, as on a GPU
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  std::string msg = cudaGetErrorString(cudaErrorLaunchFailure);
  CHECK(msg.find("lanes 0-30 wait in __shfl_down_sync at tests/emulator/unit_tests.cu:" + std::to_string(kShuffleLine)) != std::string::npos);
  CHECK(msg.find("lane 31 has already returned") != std::string::npos);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);  // and again: sticky, as on a GPU
  cudaDeviceReset();
}

TEST_CASE("a barrier after some threads returned: proceeds (with a warning), as current GPUs do") {
  DeviceArray<int> d(64, 0xff);
  early_exit_barrier<<<1, 64>>>(d.p, 40);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto r = d.get();
  for (int t = 0; t < 40; ++t) CHECK(r[t] == 39 - t);
  CHECK(r[40] == -1);
}

// ---- host API --------------------------------------------------------------------------------------
TEST_CASE("runtime: allocations, copies out of range, events, properties") {
  void* p = nullptr;
  REQUIRE(cudaMalloc(&p, 100) == cudaSuccess);
  CHECK(reinterpret_cast<uintptr_t>(p) % 256 == 0);
  std::vector<char> h(200);
  CHECK(cudaMemcpy(p, h.data(), 100, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(cudaMemcpy(p, h.data(), 101, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFree(p) == cudaSuccess);
  CHECK(cudaFree(p) == cudaErrorInvalidValue);  // freed twice
  cudaGetLastError();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  cudaEventRecord(b);
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, a, b) == cudaSuccess);
  CHECK(ms >= 0);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  CHECK(prop.warpSize == 32);
  CHECK(prop.maxThreadsPerBlock == 1024);
  CHECK(std::string(prop.name).find("CPU") != std::string::npos);
  int count = 0;
  CHECK(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 1);
  CHECK(std::string(cudaGetErrorName(cudaErrorInvalidConfiguration)) == "cudaErrorInvalidConfiguration");
}

__device__ int g_counter;
__constant__ float c_scale[4];
__global__ void use_symbols(float* out) {
  atomicAdd(&g_counter, 1);
  out[blockIdx.x * 4 + threadIdx.x] = c_scale[threadIdx.x];
}

TEST_CASE("__device__ and __constant__ variables with cudaMemcpyToSymbol / FromSymbol") {
  float scale[4] = {1, 2, 3, 4};
  int zero = 0;
  REQUIRE(cudaMemcpyToSymbol(c_scale, scale, sizeof scale) == cudaSuccess);
  REQUIRE(cudaMemcpyToSymbol(g_counter, &zero, sizeof zero) == cudaSuccess);
  DeviceArray<float> d(12);
  use_symbols<<<3, 4>>>(d.p);
  int count = 0;
  REQUIRE(cudaMemcpyFromSymbol(&count, g_counter, sizeof count) == cudaSuccess);
  CHECK(count == 12);
  CHECK(d.get() == std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4});
}

__global__ void wild_store(float* p) { p[size_t(1) << 40] = 1.0f; }

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST_CASE("a fault inside a kernel becomes cudaErrorIllegalAddress, and the process goes on after cudaDeviceReset") {
  DeviceArray<float> d(1);
  cudaGetLastError();
  wild_store<<<2, 32>>>(d.p);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress)).find("wild_store") != std::string::npos);
  // Lab code cannot read the error away and go on as if the kernel had worked: sticky.
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(cudaMemset(d.p, 0, 4) == cudaErrorIllegalAddress);
  cudaDeviceReset();
  DeviceArray<int> ids(64);
  write_ids<<<2, 32>>>(ids.p, 64);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(ids.get()[63] == 63);
}
#endif

// extern __shared__ at namespace scope, shared by two kernels (a common CUDA idiom).
extern __shared__ float g_dynamic[];
__global__ void fill_then_sum(float* out) {
  g_dynamic[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) s += g_dynamic[i];
    out[blockIdx.x] = s;
  }
}

TEST_CASE("extern __shared__ at namespace scope") {
  DeviceArray<float> d(3);
  fill_then_sum<<<3, 100, 100 * sizeof(float)>>>(d.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d.get() == std::vector<float>{4950, 4950, 4950});
}

// ---- issue 10: what GPUs do that one-thread-after-another would not ---------------------------
static std::string all_notes() {
  std::string s;
  for (auto& n : cudalab_cpu::control::take_notes(false)) s += n + "\n";
  return s;
}

// The classic last-warp unrolling: correct on GPUs only because a warp runs in lockstep.
constexpr int kVolatileCallLine = __LINE__ + 9;
__device__ void unrolled_warp_sum(volatile int* s, unsigned t) {
  for (unsigned o = 32; o > 0; o >>= 1) s[t] += s[t + o];
}
__global__ void warp_synchronous_sum(const int* in, int* out) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) unrolled_warp_sum(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}
// The same with __syncwarp() between the steps: what CUDA promises, and no note.
__global__ void syncwarp_sum(const int* in, int* out) {
  __shared__ volatile int s[64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32)
    for (unsigned o = 32; o > 0; o >>= 1) {
      int v = s[t] + s[t + o];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
  if (t == 0) out[blockIdx.x] = s[0];
}

TEST_CASE("volatile warp-synchronous code runs in lockstep, with a note naming the reliance") {
  const int blocks = 4;
  std::vector<int> h(blocks * 64);
  std::iota(h.begin(), h.end(), 1);
  DeviceArray<int> in(h.size()), out(blocks);
  in.put(h);
  all_notes();
  for (const char* schedule : {"in-order", "reverse", "random:3"}) {
    REQUIRE(cudalab_cpu::control::set_schedule(schedule));
    warp_synchronous_sum<<<blocks, 64>>>(in.p, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto r = out.get();
    for (int b = 0; b < blocks; ++b) CHECK(r[b] == std::accumulate(h.begin() + 64 * b, h.begin() + 64 * b + 64, 0));
  }
  cudalab_cpu::control::set_schedule("in-order");
  std::string notes = all_notes();
  CHECK(notes.find("warp-synchronous code") != std::string::npos);
  CHECK(notes.find("volatile pointer made at tests/emulator/unit_tests.cu:" + std::to_string(kVolatileCallLine)) != std::string::npos);
  CHECK(notes.find("__syncwarp()") != std::string::npos);

  syncwarp_sum<<<blocks, 64>>>(in.p, out.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(out.get()[1] == std::accumulate(h.begin() + 64, h.begin() + 128, 0));
  CHECK(all_notes().empty());
}

// Block b records when it started; every block exactly once, in the schedule's order.
__global__ void block_start_order(int* order, int* next) {
  if (threadIdx.x == 0) order[atomicAdd(next, 1)] = int(blockIdx.x);
}
static std::vector<int> block_starts(const char* schedule, int blocks) {
  cudalab_cpu::control::set_worker_count(1);
  REQUIRE(cudalab_cpu::control::set_schedule(schedule));
  DeviceArray<int> order(blocks), next(1);
  block_start_order<<<blocks, 32>>>(order.p, next.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  cudalab_cpu::control::set_schedule("in-order");
  cudalab_cpu::control::set_worker_count(0);
  return order.get();
}

TEST_CASE("schedules order blocks too: in order, reversed, shuffled by seed") {
  for (int blocks : {1, 2, 7, 64, 1000}) {
    auto in = block_starts("in-order", blocks), rev = block_starts("reverse", blocks);
    auto r1 = block_starts("random:1", blocks);
    for (int k = 0; k < blocks; ++k) CHECK(in[k] == k);
    for (int k = 0; k < blocks; ++k) CHECK(rev[k] == blocks - 1 - k);
    CHECK(block_starts("random:1", blocks) == r1);  // a seed replays
    auto sorted = r1;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == in);  // every block exactly once
    if (blocks >= 64) {
      CHECK(r1 != in);
      CHECK(r1 != rev);
      CHECK(block_starts("random:2", blocks) != r1);
    }
  }
}

// The tree loop's barrier inside the divergent `if`: barrier divergence, named as such.
constexpr int kBarrierInIfLine = __LINE__ + 7;
__global__ void barrier_in_if(int* data) {
  __shared__ int s[64];
  unsigned t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  for (unsigned o = 32; o > 0; o >>= 1)
    if (t < o) { s[t] += s[t + o]; __syncthreads(); }
  if (t == 0) data[0] = s[0];
}

TEST_CASE("a __syncthreads() inside a divergent if: a note on barrier divergence, not on a return") {
  std::vector<int> h(64, 1);
  DeviceArray<int> d(64);
  d.put(h);
  all_notes();
  barrier_in_if<<<1, 64>>>(d.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(d.get()[0] == 64);
  std::string notes = all_notes();
  CHECK(notes.find("barrier divergence at tests/emulator/unit_tests.cu:" + std::to_string(kBarrierInIfLine) +
                   ": 32 of 64 threads of block 0") != std::string::npos);
  CHECK(notes.find("inside an `if`") != std::string::npos);
  CHECK(notes.find("return") == std::string::npos);
  // A note is given once per barrier, not once per launch.
  barrier_in_if<<<1, 64>>>(d.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(all_notes().empty());
}

TEST_CASE("device memory: the harness's guard words past the elements are writable, far past is not") {
  // The harness allocates n elements plus 4096 guard words, writes them, and reads them back.
  const size_t n = 1000, guards = 4096;
  DeviceArray<float> d(n + guards);
  std::vector<float> h(n + guards, 7.0f);
  d.put(h);
  CHECK(d.get() == h);
  void* a = nullptr;
  REQUIRE(cudaMalloc(&a, 1 << 20) == cudaSuccess);
  CHECK(reinterpret_cast<uintptr_t>(a) % 256 == 0);
  CHECK(cudaFree(a) == cudaSuccess);
  CHECK(cudaFree(a) == cudaErrorInvalidValue);  // freed twice
  cudaGetLastError();
}

__global__ void store_past_end(float* p, size_t at) { if (blockIdx.x == 1 && threadIdx.x == 3) p[at] = 1.0f; }

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST_CASE("a store far past a cudaMalloc'd array is an illegal address naming kernel, block and thread") {
  DeviceArray<float> d(1000);
  cudaGetLastError();
  store_past_end<<<2, 32>>>(d.p, 1000 + 3000);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  std::string msg = cudaGetErrorString(cudaErrorIllegalAddress);
  CHECK(msg.find("store_past_end") != std::string::npos);
  CHECK(msg.find("thread 3 of block 1 wrote to memory 12000 bytes past the end of a 4000-byte cudaMalloc allocation") !=
        std::string::npos);
  cudaDeviceReset();
  store_past_end<<<2, 32>>>(d.p, 999);  // in bounds: fine again
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

// ---- device memory and the lab's host code (control::run_host_code) -----------------------------
static std::string as_host_code(const std::function<void()>& body) {
  return cudalab_cpu::control::run_host_code([](void* f) { (*static_cast<const std::function<void()>*>(f))(); },
                                             const_cast<std::function<void()>*>(&body));
}
__global__ void add_one(float* p, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}

TEST_CASE("host code cannot touch device memory; kernels, cudaMemset and cudaMemcpy can") {
  DeviceArray<float> d(1000);  // made outside: as the harness makes its buffers
  cudalab_cpu::control::name_device_allocation(d.p, "d_data");
  d.put(std::vector<float>(1000, 1.0f));
  const unsigned long long changes = cudalab_cpu::control::protection_changes();
  float seen = 0;
  CHECK(as_host_code([&] {
          add_one<<<4, 256>>>(d.p, 1000);
          REQUIRE(cudaMemset(d.p + 999, 0, 4) == cudaSuccess);
          REQUIRE(cudaMemcpy(&seen, d.p + 5, 4, cudaMemcpyDeviceToHost) == cudaSuccess);
        }) == "");
  CHECK(seen == 2.0f);
  CHECK(cudalab_cpu::control::protection_changes() > changes);  // closed, opened for each, closed, opened
  std::string fault = as_host_code([&] { seen = d.p[7]; });
  CAPTURE(fault);
  CHECK(fault.find("your host code read device memory (d_data, at byte 28)") == 0);
  fault = as_host_code([&] { d.p[3] = 1.0f; });
  CHECK(fault.find("your host code wrote to device memory (d_data, at byte 12)") == 0);
  auto h = d.get();  // open again once the host code is over
  CHECK(h[7] == 2.0f);
  CHECK(h[999] == 0.0f);
  // The lab's own allocations are device memory too; managed memory is the host's as well.
  float *own = nullptr, *managed = nullptr;
  fault = as_host_code([&] {
    REQUIRE(cudaMallocManaged(&managed, 64) == cudaSuccess);
    managed[1] = 3.0f;
    REQUIRE(cudaMalloc(&own, 32) == cudaSuccess);
    REQUIRE(cudaMemset(own, 0, 32) == cudaSuccess);
    seen = own[1];
  });
  CHECK(fault.find("your host code read device memory (a 32-byte cudaMalloc allocation of yours, at byte 4)") == 0);
  CHECK(managed[1] == 3.0f);
  CHECK(cudaFree(own) == cudaSuccess);
  CHECK(cudaFree(managed) == cudaSuccess);
  CHECK_THROWS_AS(as_host_code([] { throw 7; }), int);  // passes through; device memory is open again
  CHECK(d.get()[7] == 2.0f);
}

TEST_CASE("the lab's own allocations end at an inaccessible page: a step past either end fails the launch") {
  float *own = nullptr, *odd = nullptr;
  as_host_code([&] {
    REQUIRE(cudaMalloc(&own, 8 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&odd, 5 * sizeof(float)) == cudaSuccess);  // 20 bytes: 12 bytes of poisoned slack after
  });
  CHECK(reinterpret_cast<uintptr_t>(own) % 16 == 0);
  CHECK(reinterpret_cast<uintptr_t>(odd) % 16 == 0);
  cudaDeviceReset();
  store_past_end<<<2, 32>>>(own, 8);  // faults: the next page is inaccessible
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress))
            .find("thread 3 of block 1 wrote to memory 0 bytes past the end of a 32-byte cudaMalloc allocation of yours") !=
        std::string::npos);
  cudaDeviceReset();
  store_past_end<<<2, 32>>>(odd, 5);  // within the page: found after the launch
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress))
            .find("kernel store_past_end (launched at tests/emulator/unit_tests.cu:") != std::string::npos);
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress))
            .find("wrote to memory 0 bytes past the end of a 20-byte cudaMalloc allocation of yours") != std::string::npos);
  cudaDeviceReset();
  store_past_end<<<2, 32>>>(odd, size_t(-1));  // one before the start, in the page's slack
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress))
            .find("4 bytes before the start of a 20-byte cudaMalloc allocation of yours") != std::string::npos);
  cudaDeviceReset();
  store_past_end<<<2, 32>>>(odd, 4);  // the last element: fine, and the slack is poison again
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  store_past_end<<<2, 32>>>(own, 7);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(own) == cudaSuccess);
  CHECK(cudaFree(odd) == cudaSuccess);
}
#endif
