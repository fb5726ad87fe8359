// Lab 7's steps, from the task's kernel to the reference's, one change at a time:
//   the task: a float per load, the two-barrier tree down to one slot, one atomicAdd per block
//   + TODO 5: warp 0 finishes the last five steps with shuffles
//   + every warp shuffles, one barrier per block
//   + float4 loads
//   + four float4 loads in flight, four accumulators (solutions/lab7_atomic_sum.cu)
#pragma once
#include <cmath>

#include "bench.cuh"

namespace lab7_steps {

constexpr unsigned kThreads = 256, kWarps = kThreads / 32;
enum Stage { kTask = 0, kLastWarpShuffles, kEveryWarpShuffles, kFloat4, kFourInFlight };

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Step 1: this thread's grid-stride run, a float or float4s (kUnroll in flight) at a time.
template <unsigned kUnroll>
__device__ float thread_sum_float4(const float* in, size_t n) {
  const unsigned t = threadIdx.x;
  const size_t misalign = (reinterpret_cast<uintptr_t>(in) & 15) / sizeof(float);
  const size_t head = misalign ? (4 - misalign < n ? 4 - misalign : n) : 0;
  const float4* in4 = reinterpret_cast<const float4*>(in + head);
  const size_t n4 = (n - head) / 4, tail = head + 4 * n4;
  const size_t stride = size_t(kThreads) * gridDim.x;
  size_t i = size_t(blockIdx.x) * kThreads + t;
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
    float4 v[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) v[u] = in4[i + u * stride];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) {
      acc.x += v[u].x;
      acc.y += v[u].y;
      acc.z += v[u].z;
      acc.w += v[u].w;
    }
  }
  for (; i < n4; i += stride) {
    const float4 v = in4[i];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  float v = (acc.x + acc.y) + (acc.z + acc.w);
  if (blockIdx.x == 0) {
    if (t < head) v += in[t];
    if (tail + t < n) v += in[tail + t];
  }
  return v;
}
__device__ float thread_sum_floats(const float* in, size_t n) {
  float v = 0.0f;
  for (size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += size_t(kThreads) * gridDim.x) v += in[i];
  return v;
}

// Step 2 as the notebook's tree: read, barrier, write, barrier, from kThreads / 2 down to
// `last` (1: the whole tree; 32: warp 0 then shuffles the rest).
__device__ void two_barrier_tree(float* s, unsigned last) {
  const unsigned t = threadIdx.x;
  for (unsigned offset = kThreads / 2; offset >= last; offset /= 2) {
    const float v = s[t] + (t + offset < kThreads ? s[t + offset] : 0.0f);
    __syncthreads();
    s[t] = v;
    __syncthreads();
  }
}

template <int kStage>
__global__ void __launch_bounds__(kThreads) sum_step(const float* __restrict__ in, float* __restrict__ sum, size_t n) {
  __shared__ float s[kThreads];
  const unsigned t = threadIdx.x;
  float v = kStage >= kFourInFlight ? thread_sum_float4<4>(in, n)
            : kStage >= kFloat4     ? thread_sum_float4<1>(in, n)
                                    : thread_sum_floats(in, n);
  if (kStage >= kEveryWarpShuffles) {
    v = warp_sum(v);
    if (t % 32 == 0) s[t / 32] = v;
    __syncthreads();
    if (t < 32) {
      v = warp_sum(t < kWarps ? s[t] : 0.0f);
      if (t == 0) atomicAdd(sum, v);
    }
    return;
  }
  s[t] = v;
  __syncthreads();
  if (kStage == kTask) {
    two_barrier_tree(s, 1);
    if (t == 0) atomicAdd(sum, s[0]);
    return;
  }
  two_barrier_tree(s, 64);  // offsets 128 and 64; warp 0 does 32 and shuffles the rest
  if (t < 32) {
    v = warp_sum(s[t] + s[t + 32]);
    if (t == 0) atomicAdd(sum, v);
  }
}

template <int kStage>
void run_step(const float* d_in, float* d_sum, size_t n) {
  static const size_t resident = bench::resident_blocks(sum_step<kStage>, kThreads);
  const size_t per_thread = kStage >= kFloat4 ? 4 : 1;
  const size_t wanted = (n / per_thread + kThreads - 1) / kThreads;
  const unsigned blocks = unsigned(std::max<size_t>(1, std::min(wanted, resident)));
  BENCH_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(float)));
  sum_step<kStage><<<blocks, kThreads>>>(d_in, d_sum, n);
}

// Right within float rounding: every addition of the longest chain may lose half an ulp of the
// running total, which is at most the sum of the (positive) inputs.
bool close_enough(const float* d_sum, double expected, size_t n) {
  float got = 0;
  BENCH_CHECK(cudaMemcpy(&got, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
  const double chain = double(n) / (kThreads * 132.0) + 64;  // a thread's run, the tree, the blocks
  return std::fabs(double(got) - expected) <= chain * 6e-8 * expected;
}

void run(const bench::L2Flush& flush, size_t n) {
  float* d_in = nullptr;
  float* d_sum = nullptr;
  BENCH_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d_sum, sizeof(float)));
  bench::fill_floats<<<1024, 256>>>(d_in, n, 7);
  std::vector<float> host(n);
  BENCH_CHECK(cudaMemcpy(host.data(), d_in, n * sizeof(float), cudaMemcpyDeviceToHost));
  double expected = 0;
  for (float x : host) expected += x;

  std::printf("\nlab 7: sum of %zu floats (bytes read / time)\n", n);
  double previous = 0;
  auto row = [&](const char* step, auto launch) {
    const double ms = bench::median_ms(flush, [&] { launch(d_in, d_sum, n); });
    bench::print_row(step, ms, double(n) * sizeof(float), previous, close_enough(d_sum, expected, n));
    previous = ms;
  };
  row("the task: float loads, two-barrier tree, atomicAdd per block", run_step<kTask>);
  row("+ TODO 5: warp 0 shuffles the last five steps", run_step<kLastWarpShuffles>);
  row("+ every warp shuffles: one barrier per block", run_step<kEveryWarpShuffles>);
  row("+ float4 loads", run_step<kFloat4>);
  row("+ four float4 loads in flight (the reference)", run_step<kFourInFlight>);
  cudaFree(d_in);
  cudaFree(d_sum);
}

}  // namespace lab7_steps
