// A Random fill's values, element by element, in device code: the same bits as fill.h makes on
// the host. Every float operation is rounded on its own (__fmul_rn and __fadd_rn cannot be
// fused into an FMA). Used by the runner's fills (fill_gpu.cu) and the checker's references
// computed on the GPU (checker/gpu/fill_reference.cu).
#pragma once
#include <cstdint>

#include "fill_bits.h"
#include "protocol.h"
#include "random.h"

namespace cudalab::wire {

// fill.h's value_from_unit on the device (a name of its own: CUDA cannot overload on __device__
// alone): lo + (hi - lo) * unit^power.
__device__ inline float device_value_from_unit(const Fill f, float unit, uint64_t i, uint64_t n) {
  float p = unit;
  for (int k = 1; k < int(f.power); ++k) p = __fmul_rn(p, unit);
  float v = __fadd_rn(f.lo, __fmul_rn(__fsub_rn(f.hi, f.lo), p));
  if (i + 1 == n && f.last_scale != 1.0f) v = __fmul_rn(v, f.last_scale);
  return v;
}

__device__ inline float value_at(const Fill f, uint64_t key, uint64_t i, uint64_t n) {
  return device_value_from_unit(f, word_unit(key, i), i, n);
}

// fill.h's held_integer on the device.
__device__ inline uint32_t device_held_integer(float value, uint32_t max) {
  const float v = floorf(value);
  return v <= 0 ? 0u : v >= float(max) ? max : uint32_t(v);
}

__device__ inline uint32_t integer_at(const Fill f, uint64_t key, uint64_t i, uint64_t n, uint32_t max) {
  return device_held_integer(value_at(f, key, i, n), max);
}

// Element i of a byte fill, from its group's hash (byte_hash(key, i)): callers that make four
// bytes at once hash once for them.
__device__ inline uint8_t byte_from_hash(const Fill f, uint64_t bits, uint64_t i, uint64_t n) {
  return uint8_t(device_held_integer(device_value_from_unit(f, byte_unit_of(bits, i), i, n), 255));
}

__device__ inline uint8_t byte_at(const Fill f, uint64_t key, uint64_t i, uint64_t n) {
  return byte_from_hash(f, byte_hash(key, i), i, n);
}

}  // namespace cudalab::wire
