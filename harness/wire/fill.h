// The values of a Random fill (protocol.h), element by element, on the host. The runner's GPU
// fill (harness/runner/fill_gpu.cu) computes the same bits: every operation is one rounded float
// operation (no fused multiply-add, no library pow), so host and device agree exactly.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "fill_bits.h"
#include "parallel.h"
#include "protocol.h"
#include "random.h"

namespace cudalab::wire {

// The per-fill part of the hash, computed once per fill.
inline uint64_t fill_key(const Fill& f) { return mix64(f.seed ^ (f.stream * 0xD1B54A32D192ED03ull)); }

// A fill's value from element i's draw in [0, 1) (fill_bits.h): lo + (hi - lo) * unit^power.
inline float value_from_unit(const Fill& f, float unit, uint64_t i, uint64_t count) {
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

// Element i of a float fill.
inline float random_value(const Fill& f, uint64_t key, uint64_t i, uint64_t count) {
  return value_from_unit(f, word_unit(key, i), i, count);
}

// A value floored and held to [0, max]: how an integer element is made from a fill's value.
inline uint32_t held_integer(float value, uint32_t max) {
  const float v = std::floor(value);
  return v <= 0 ? 0u : v >= float(max) ? max : uint32_t(v);
}

// Element i of a byte fill (its draws shared four to a hash: fill_bits.h).
inline uint8_t random_byte(const Fill& f, uint64_t key, uint64_t i, uint64_t count) {
  return uint8_t(held_integer(value_from_unit(f, byte_unit(key, i), i, count), 255));
}

// A Random fill, uniform in [lo, hi) on stream `stream` of `seed`: how the checker asks for most inputs.
inline Fill uniform_fill(uint64_t seed, uint64_t stream, float lo, float hi) {
  Fill f;
  f.kind = FillKind::Random;
  f.seed = seed;
  f.stream = stream;
  f.lo = lo;
  f.hi = hi;
  return f;
}

// Element i of a Random fill as a T holds it: floats as drawn, integers floored and held to T's
// range. The one conversion of both sides (ElemType names the same four types).
template <class T>
T fill_value(const Fill& f, uint64_t key, uint64_t i, uint64_t count) {
  if constexpr (std::is_same_v<T, float>)
    return random_value(f, key, i, count);
  else if constexpr (std::is_same_v<T, uint8_t>)
    return random_byte(f, key, i, count);
  else if constexpr (std::is_same_v<T, int32_t>)
    return int32_t(held_integer(random_value(f, key, i, count), 0x7FFFFFFFu));
  else {
    static_assert(std::is_same_v<T, uint32_t>, "a fill makes float, uint8_t, int32_t or uint32_t elements");
    return held_integer(random_value(f, key, i, count), 0xFFFFFFFFu);
  }
}

// A whole Random fill in host memory, in parallel: the CPU backend's device memory, the
// checker's references.
template <class T>
void fill_host(T* out, const Fill& f, uint64_t count) {
  const uint64_t key = fill_key(f);
  parallel_for(count, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out[i] = fill_value<T>(f, key, i, count);
  });
}

}  // namespace cudalab::wire
