// The values of a Random fill (protocol.h), element by element, on the host. The runner's GPU
// fill (harness/runner/fill_gpu.cu) computes the same bits: every operation is one rounded float
// operation (no fused multiply-add, no library pow), so host and device agree exactly.
#pragma once
#include <cmath>
#include <cstdint>

#include "protocol.h"
#include "random.h"

namespace cudalab::wire {

// The per-fill part of the hash, computed once per fill.
inline uint64_t fill_key(const Fill& f) { return mix64(f.seed ^ (f.stream * 0xD1B54A32D192ED03ull)); }

inline float random_value(const Fill& f, uint64_t key, uint64_t i, uint64_t count) {
  const uint64_t bits = mix64(key + i);
  const float unit = float(bits >> 40) * (1.0f / 16777216.0f);
  float p = unit;
  for (int k = 1; k < int(f.power); ++k) {
    volatile float step = p * unit;  // volatile: one rounding per step, as on the device
    p = step;
  }
  volatile float scaled = (f.hi - f.lo) * p;
  float v = f.lo + scaled;
  if (i + 1 == count && f.last_scale != 1.0f) v = v * f.last_scale;
  return v;
}

inline uint32_t random_integer(const Fill& f, uint64_t key, uint64_t i, uint64_t count, uint32_t max) {
  const float v = std::floor(random_value(f, key, i, count));
  return v <= 0 ? 0u : v >= float(max) ? max : uint32_t(v);
}

}  // namespace cudalab::wire
