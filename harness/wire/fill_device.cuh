// A Random fill's values, element by element, in device code: the same bits as fill.h makes on
// the host. Every float operation is rounded on its own (__fmul_rn and __fadd_rn cannot be
// fused into an FMA). Used by the runner's fills (fill_gpu.cu) and the checker's references
// computed on the GPU (checker/gpu/fill_reference.cu).
#pragma once
#include <cstdint>

#include "protocol.h"
#include "random.h"

namespace cudalab::wire {

__device__ inline float value_at(const Fill f, uint64_t key, uint64_t i, uint64_t n) {
  const uint64_t bits = mix64(key + i);
  const float unit = __fmul_rn(float(bits >> 40), 1.0f / 16777216.0f);
  float p = unit;
  for (int k = 1; k < int(f.power); ++k) p = __fmul_rn(p, unit);
  float v = __fadd_rn(f.lo, __fmul_rn(__fsub_rn(f.hi, f.lo), p));
  if (i + 1 == n && f.last_scale != 1.0f) v = __fmul_rn(v, f.last_scale);
  return v;
}

__device__ inline uint32_t integer_at(const Fill f, uint64_t key, uint64_t i, uint64_t n, uint32_t max) {
  const float v = floorf(value_at(f, key, i, n));
  return v <= 0 ? 0u : v >= float(max) ? max : uint32_t(v);
}

}  // namespace cudalab::wire
