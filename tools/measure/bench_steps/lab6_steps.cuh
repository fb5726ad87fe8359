// Lab 6's steps, from the task's kernel to the reference's, one change at a time:
//   the task: 256 shared bins, one byte per load, a grid of one wave of resident blocks
//   + uint4 loads (16 bytes a thread per load)
//   + two uint4 loads in flight before either is counted
//   + 32 copies of the bins, one per lane (solutions/lab6_histogram.cu)
// and what the reference's occupancy caching saves on the host per call.
#pragma once
#include <chrono>

#include "bench.cuh"

namespace lab6_steps {

constexpr unsigned kThreads = 256, kBins = 256, kLanes = 32;

// Where lane `lane` counts value b: its own copy (bin-major, so lane l is always bank l), or the
// one shared copy.
template <bool kLaneCopies>
__device__ __forceinline__ unsigned slot(unsigned b, unsigned lane) { return kLaneCopies ? b * kLanes + lane : b; }

template <bool kLaneCopies>
__device__ __forceinline__ void count_word(unsigned* s, unsigned lane, unsigned w) {
  for (int k = 0; k < 4; ++k) atomicAdd(&s[slot<kLaneCopies>((w >> (8 * k)) & 255u, lane)], 1u);
}
template <bool kLaneCopies>
__device__ __forceinline__ void count_vector(unsigned* s, unsigned lane, uint4 v) {
  count_word<kLaneCopies>(s, lane, v.x);
  count_word<kLaneCopies>(s, lane, v.y);
  count_word<kLaneCopies>(s, lane, v.z);
  count_word<kLaneCopies>(s, lane, v.w);
}

// Step 3 one byte at a time: the task's grid-stride loop.
template <bool kLaneCopies>
__device__ void count_bytes(const unsigned char* in, size_t n, unsigned* s, unsigned lane) {
  for (size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += size_t(kThreads) * gridDim.x)
    atomicAdd(&s[slot<kLaneCopies>(in[i], lane)], 1u);
}

// Step 3 by uint4s (one or two in flight), block 0 taking the loose bytes at both ends.
template <bool kTwoInFlight, bool kLaneCopies>
__device__ void count_vectors(const unsigned char* in, size_t n, unsigned* s, unsigned lane) {
  const size_t misalign = reinterpret_cast<uintptr_t>(in) & 15;
  const size_t head = misalign ? (16 - misalign < n ? 16 - misalign : n) : 0;
  const uint4* in16 = reinterpret_cast<const uint4*>(in + head);
  const size_t n16 = (n - head) / 16, tail = head + 16 * n16;
  const size_t stride = size_t(kThreads) * gridDim.x;
  size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x;
  if (kTwoInFlight) {
    for (; i + stride < n16; i += 2 * stride) {
      const uint4 a = in16[i], b = in16[i + stride];
      count_vector<kLaneCopies>(s, lane, a);
      count_vector<kLaneCopies>(s, lane, b);
    }
  }
  for (; i < n16; i += stride) count_vector<kLaneCopies>(s, lane, in16[i]);
  const unsigned t = threadIdx.x;
  if (blockIdx.x == 0 && t < 16) {
    if (t < head) atomicAdd(&s[slot<kLaneCopies>(in[t], lane)], 1u);
    if (tail + t < n) atomicAdd(&s[slot<kLaneCopies>(in[tail + t], lane)], 1u);
  }
}

template <bool kVector, bool kTwoInFlight, bool kLaneCopies>
__global__ void __launch_bounds__(kThreads) histogram_step(const unsigned char* __restrict__ in,
                                                           unsigned* __restrict__ hist, size_t n) {
  constexpr unsigned kWords = kLaneCopies ? kBins * kLanes : kBins;
  __shared__ unsigned s[kWords];
  const unsigned t = threadIdx.x, lane = t % kLanes;
  for (unsigned w = t; w < kWords; w += kThreads) s[w] = 0;
  __syncthreads();
  if (kVector) count_vectors<kTwoInFlight, kLaneCopies>(in, n, s, lane);
  else count_bytes<kLaneCopies>(in, n, s, lane);
  __syncthreads();
  for (unsigned bin = t; bin < kBins; bin += kThreads) {
    unsigned total = 0;
    if (kLaneCopies)
      for (unsigned c = 0; c < kLanes; ++c) total += s[bin * kLanes + (c + bin) % kLanes];
    else
      total = s[bin];
    if (total != 0) atomicAdd(&hist[bin], total);
  }
}

// The harness's naive kernel, for the first row: one global atomic per byte.
__global__ void histogram_global_atomics(const unsigned char* in, unsigned* hist, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(blockDim.x) * gridDim.x)
    atomicAdd(&hist[in[i]], 1u);
}

// One step: clear, then one wave of resident blocks (no more than the data needs).
template <bool kVector, bool kTwoInFlight, bool kLaneCopies>
void run_step(const unsigned char* d_in, unsigned* d_hist, size_t n) {
  auto kernel = histogram_step<kVector, kTwoInFlight, kLaneCopies>;
  static const size_t resident = bench::resident_blocks(kernel, kThreads);
  const size_t per_thread = kVector ? 16 : 1;
  const size_t wanted = (n / per_thread + kThreads - 1) / kThreads;
  const unsigned blocks = unsigned(std::max<size_t>(1, std::min(wanted, resident)));
  BENCH_CHECK(cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned)));
  kernel<<<blocks, kThreads>>>(d_in, d_hist, n);
}
void run_global_atomics(const unsigned char* d_in, unsigned* d_hist, size_t n) {
  static const size_t resident = bench::resident_blocks(histogram_global_atomics, kThreads);
  BENCH_CHECK(cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned)));
  histogram_global_atomics<<<unsigned(resident), kThreads>>>(d_in, d_hist, n);
}

bool same_counts(const unsigned* d_hist, const std::vector<unsigned>& expected) {
  std::vector<unsigned> got(kBins);
  BENCH_CHECK(cudaMemcpy(got.data(), d_hist, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return got == expected;
}

// The host-side price of asking the runtime for the grid on every call (the reference asks
// once per process): microseconds per call of the three queries.
double occupancy_query_us() {
  constexpr int kCalls = 10000;
  const auto start = std::chrono::steady_clock::now();
  size_t sink = 0;
  for (int c = 0; c < kCalls; ++c) sink += bench::resident_blocks(histogram_step<true, true, true>, kThreads);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  return sink ? us / kCalls : 0;
}

void run(const bench::L2Flush& flush, size_t n) {
  unsigned char* d_in = nullptr;
  unsigned* d_hist = nullptr;
  BENCH_CHECK(cudaMalloc(&d_in, n));
  BENCH_CHECK(cudaMalloc(&d_hist, kBins * sizeof(unsigned)));
  for (bool skewed : {false, true}) {
    bench::fill_bytes<<<1024, 256>>>(d_in, n, 6, skewed);
    std::vector<unsigned char> bytes(n);
    BENCH_CHECK(cudaMemcpy(bytes.data(), d_in, n, cudaMemcpyDeviceToHost));
    std::vector<unsigned> expected(kBins, 0);
    for (unsigned char b : bytes) ++expected[b];

    std::printf("\nlab 6: histogram of %zu %s bytes (bytes read / time)\n", n, skewed ? "skewed" : "uniform");
    double previous = 0;
    auto row = [&](const char* step, auto launch, bool chain) {
      const double ms = bench::median_ms(flush, [&] { launch(d_in, d_hist, n); });
      bench::print_row(step, ms, double(n), chain ? previous : 0, same_counts(d_hist, expected));
      previous = ms;
    };
    row("global atomics, one per byte (the harness's naive kernel)", run_global_atomics, false);
    row("the task: 256 shared bins, byte loads, one wave of blocks", run_step<false, false, false>, true);
    row("+ uint4 loads: 16 bytes a thread per load", run_step<true, false, false>, true);
    row("+ two uint4 loads in flight", run_step<true, true, false>, true);
    row("+ 32 copies of the bins, one per lane (the reference)", run_step<true, true, true>, true);
  }
  std::printf("\nlab 6: the three occupancy queries, asked on every call: %.2f us per call (the reference asks once)\n",
              occupancy_query_us());
  cudaFree(d_in);
  cudaFree(d_hist);
}

}  // namespace lab6_steps
