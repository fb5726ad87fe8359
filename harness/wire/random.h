// Seeded, reproducible inputs. A counter-based generator: element i of stream s under
// seed k is a pure function of (k, s, i), so inputs can be filled in parallel and any
// element can be recomputed without the others.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudalab {

// Host and device (nvcc) alike: the runner's GPU fill hashes with the same function.
#ifdef __CUDACC__
#define CUDALAB_HOST_DEVICE __host__ __device__
#else
#define CUDALAB_HOST_DEVICE
#endif

// A well-mixed 64-bit hash (the splitmix64 finaliser construction).
CUDALAB_HOST_DEVICE constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform float in [lo, hi) for element i of `stream` under `seed`.
inline float uniform_at(uint64_t seed, uint64_t stream, uint64_t i, float lo, float hi) {
  uint64_t bits = mix64(mix64(seed ^ (stream * 0xD1B54A32D192ED03ull)) + i);
  float unit = float(bits >> 40) * (1.0f / 16777216.0f);  // 24 random bits: exact in float
  return lo + (hi - lo) * unit;
}

// Fills v with uniform values in [lo, hi), using every core for large vectors.
void fill_uniform(std::vector<float>& v, uint64_t seed, uint64_t stream, float lo, float hi);

// Derives the seed of one check from the run's seed and the check's id.
uint64_t derive_seed(uint64_t run_seed, const char* check_id);

// A fresh seed when none was given: time and address entropy.
uint64_t fresh_seed();

}  // namespace cudalab
