#include "sum_reference.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "fill_reference.h"
#include "wire/fill.h"
#include "wire/parallel.h"
#include "wire/random.h"

namespace cudalab {

wire::Fill sum_fill(uint64_t seed) {
  wire::Fill f;
  f.kind = wire::FillKind::Random;
  f.seed = seed;
  f.stream = 1;
  f.lo = 0.5f;
  f.hi = 1.5f;
  f.last_scale = 65536.0f;  // still random: [0.5, 1.5) times 2^16
  return f;
}

std::vector<float> sum_input(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  wire::fill_host(v.data(), sum_fill(seed), n);
  return v;
}

SumReference sum_reference(const std::vector<float>& x) {
  SumReference r;
  std::mutex m;
  parallel_for(x.size(), [&](size_t b, size_t e) {
    double s = 0, a = 0;
    for (size_t i = b; i < e; ++i) {
      s += x[i];
      a += std::fabs(x[i]);
    }
    std::lock_guard<std::mutex> lock(m);
    r.sum += s;
    r.abs_sum += a;
  });
  return r;
}

SumReference range_sum_reference(size_t n, const wire::Fill& fill, size_t begin, size_t end) {
  SumReference r;
#ifdef CUDALAB_GPU_CHECKER
  // The largest checks' references on the checker's GPU (fill_reference.h); the host otherwise.
  if (end - begin >= kDeviceReferenceFrom && device_range_sum(n, fill, begin, end, r.sum, r.abs_sum)) return r;
#endif
  std::mutex m;
  const uint64_t key = wire::fill_key(fill);
  parallel_for(end - begin, [&](size_t b, size_t e) {
    double s = 0, a = 0;
    for (size_t i = begin + b; i < begin + e; ++i) {
      const float x = wire::random_value(fill, key, i, n);
      s += x;
      a += std::fabs(x);
    }
    std::lock_guard<std::mutex> lock(m);
    r.sum += s;
    r.abs_sum += a;
  });
  return r;
}

SumReference sum_reference(size_t n, const wire::Fill& fill) { return range_sum_reference(n, fill, 0, n); }

BlockSums block_sums_reference(const std::vector<float>& x, size_t block) {
  size_t blocks = (x.size() + block - 1) / block;
  BlockSums r{std::vector<double>(blocks), std::vector<double>(blocks), std::vector<size_t>(blocks)};
  parallel_for(
      blocks,
      [&](size_t b0, size_t b1) {
        for (size_t b = b0; b < b1; ++b) {
          size_t begin = b * block, end = std::min(x.size(), begin + block);
          double s = 0, a = 0;
          for (size_t i = begin; i < end; ++i) {
            s += x[i];
            a += std::fabs(x[i]);
          }
          r.sums[b] = s;
          r.abs_sums[b] = a;
          r.lengths[b] = end - begin;
        }
      },
      64);
  return r;
}

std::vector<double> prefix_sums(const std::vector<float>& x, size_t max_n) {
  if (x.size() > max_n) return {};
  std::vector<double> p(x.size() + 1);
  for (size_t i = 0; i < x.size(); ++i) p[i + 1] = p[i] + x[i];
  return p;
}

double serial_sum(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += v;
  return s;
}

}  // namespace cudalab
