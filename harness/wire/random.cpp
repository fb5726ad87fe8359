#include "random.h"

#include <chrono>
#include <random>

#include "parallel.h"

namespace cudalab {

void fill_uniform(std::vector<float>& v, uint64_t seed, uint64_t stream, float lo, float hi) {
  parallel_for(v.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) v[i] = uniform_at(seed, stream, i, lo, hi);
  });
}

uint64_t derive_seed(uint64_t run_seed, const char* check_id) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the id, then mixed with the seed
  for (const char* c = check_id; *c; ++c) h = (h ^ uint8_t(*c)) * 1099511628211ull;
  return mix64(run_seed ^ h);
}

uint64_t fresh_seed() {
  std::random_device rd;
  uint64_t t = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  // Keep seeds short enough to retype: six digits.
  return mix64(t ^ (uint64_t(rd()) << 32)) % 1000000;
}

}  // namespace cudalab
