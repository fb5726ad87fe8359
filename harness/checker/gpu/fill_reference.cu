#include "checker/judging/fill_reference.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "checker/judging/topk_reference.h"
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
    atomicAdd(&bins[wire::byte_at(f, key, i, n)], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
    if (bins[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(bins[b]));
}

// ---- Lab 8: the first k of a float fill --------------------------------------------------
// A float's order key: a larger value has a larger key, and -0.0 and +0.0 have the same one (they
// are equal: the lower index wins between them). Fills never make NaN.
__device__ inline uint32_t order_key(float v) {
  const uint32_t b = v == 0.0f ? 0u : __float_as_uint(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// The key is found in three levels of at most 11 bits: a histogram of 2,048 bins fits in shared memory.
constexpr unsigned kKeyBins = 2048;
struct KeyLevel {
  unsigned shift, width;
};
constexpr KeyLevel kKeyLevels[3] = {{21, 11}, {10, 11}, {0, 10}};

// Counts, per value of the key bits [shift, shift + width), the elements whose key bits above
// them are `prefix` (the bits `prefix_mask` covers).
__global__ void key_histogram_kernel(wire::Fill f, uint64_t key, uint64_t n, uint32_t prefix_mask, uint32_t prefix,
                                     KeyLevel level, unsigned long long* counts) {
  __shared__ unsigned bins[kKeyBins];
  for (unsigned b = threadIdx.x; b < kKeyBins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint32_t k = order_key(wire::value_at(f, key, i, n));
    if ((k & prefix_mask) == prefix) atomicAdd(&bins[(k >> level.shift) & ((1u << level.width) - 1)], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kKeyBins; b += blockDim.x)
    if (bins[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(bins[b]));
}

struct Candidate {
  float value;
  int32_t index;
};

// Every element whose key is at least `threshold`, in no particular order, up to `capacity`
// (count says how many there were).
__global__ void collect_kernel(wire::Fill f, uint64_t key, uint64_t n, uint32_t threshold, Candidate* out,
                               unsigned long long capacity, unsigned long long* count) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const float v = wire::value_at(f, key, i, n);
    if (order_key(v) < threshold) continue;
    const unsigned long long slot = atomicAdd(count, 1ull);
    if (slot < capacity) out[slot] = Candidate{v, int32_t(i)};
  }
}

// Device memory for `count` values of T, or nothing when there is no usable GPU; freed on return.
template <class T>
struct Scratch {
  T* p = nullptr;
  explicit Scratch(size_t count) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 ||
        cudaMalloc(&p, count * sizeof(T)) != cudaSuccess) {
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

namespace {

// The bin, counted from the top, that holds the `rank`-th largest key (rank from 1); rank becomes
// that key's rank inside the bin.
unsigned bin_of_rank(const unsigned long long* counts, unsigned bins, uint64_t& rank) {
  for (unsigned b = bins; b-- > 0;) {
    if (counts[b] >= rank) return b;
    rank -= counts[b];
  }
  return 0;  // fewer keys than rank: not reached, rank <= n
}

// The order key of the k-th element of the fill, level by level; false when a step failed.
bool kth_key(const wire::Fill& fill, uint64_t key, size_t n, size_t k, unsigned long long* counts, uint32_t& kth) {
  uint32_t prefix = 0, prefix_mask = 0;
  uint64_t rank = k;
  for (const KeyLevel level : kKeyLevels) {
    if (cudaMemset(counts, 0, kKeyBins * sizeof(unsigned long long)) != cudaSuccess) return false;
    key_histogram_kernel<<<kBlocks, kThreads>>>(fill, key, n, prefix_mask, prefix, level, counts);
    unsigned long long host[kKeyBins];
    if (cudaMemcpy(host, counts, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return false;
    const uint32_t mask = ((1u << level.width) - 1) << level.shift;
    prefix |= bin_of_rank(host, 1u << level.width, rank) << level.shift;
    prefix_mask |= mask;
  }
  kth = prefix;
  return true;
}

}  // namespace

bool device_top_k_of_fill(size_t n, const wire::Fill& fill, size_t k, std::vector<TopKEntry>& first_k) {
  k = std::min(k, n);
  first_k.clear();
  if (k == 0) return true;
  // The k first, and every element tied with the k-th: more than this many ties are the host's.
  constexpr unsigned long long kCapacity = 1ull << 20;
  Scratch<unsigned long long> counts(kKeyBins + 1);
  Scratch<Candidate> candidates(kCapacity);
  if (!counts.p || !candidates.p) return false;
  const uint64_t key = wire::fill_key(fill);
  uint32_t kth = 0;
  unsigned long long found = 0, *device_found = counts.p + kKeyBins;
  bool ok = kth_key(fill, key, n, k, counts.p, kth) && cudaMemset(device_found, 0, sizeof found) == cudaSuccess;
  if (ok) {
    collect_kernel<<<kBlocks, kThreads>>>(fill, key, n, kth, candidates.p, kCapacity, device_found);
    ok = cudaMemcpy(&found, device_found, sizeof found, cudaMemcpyDeviceToHost) == cudaSuccess && found >= k &&
         found <= kCapacity;
  }
  std::vector<Candidate> host(ok ? size_t(found) : 0);
  if (ok)
    ok = cudaMemcpy(host.data(), candidates.p, host.size() * sizeof(Candidate), cudaMemcpyDeviceToHost) == cudaSuccess;
  if (!ok) {
    cudaGetLastError();  // the host's cue, not an error to carry on
    return false;
  }
  for (const Candidate& c : host) first_k.push_back(TopKEntry{c.value, c.index});
  std::sort(first_k.begin(), first_k.end(),
            [](const TopKEntry& a, const TopKEntry& b) { return comes_before(a.value, a.index, b.value, b.index); });
  first_k.resize(k);
  return true;
}

}  // namespace cudalab
