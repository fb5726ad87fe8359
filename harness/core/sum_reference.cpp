#include "sum_reference.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "parallel.h"
#include "random.h"

namespace cudalab {

std::vector<float> sum_input(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  fill_uniform(v, seed, /*stream=*/1, 0.5f, 1.5f);
  if (n > 0) v[n - 1] *= 65536.0f;  // still random: [0.5, 1.5) times 2^16
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

BlockSums block_sums_reference(const std::vector<float>& x, size_t block) {
  size_t blocks = (x.size() + block - 1) / block;
  BlockSums r{std::vector<double>(blocks), std::vector<double>(blocks), std::vector<size_t>(blocks)};
  parallel_for(blocks, [&](size_t b0, size_t b1) {
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
  }, 64);
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
