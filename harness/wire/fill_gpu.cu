// Random fills made on the device, for the runner's inputs and the checker's own timing
// baselines (no host copy of the input needed). The same bits as harness/wire/fill.h: every
// float operation rounded on its own (__fmul_rn and __fadd_rn cannot be fused into an FMA).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_errors.h"
#include "fill.h"
#include "fill_device.cuh"
#include "fill_gpu.h"
#include "random.h"

namespace cudalab::wire {
namespace {

__global__ void fill_kernel(void* p, ElemType type, Fill f, uint64_t key, uint64_t n) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    switch (type) {
      case ElemType::F32: static_cast<float*>(p)[i] = value_at(f, key, i, n); break;
      case ElemType::U32: static_cast<uint32_t*>(p)[i] = integer_at(f, key, i, n, 0xFFFFFFFFu); break;
      case ElemType::I32: static_cast<int32_t*>(p)[i] = int32_t(integer_at(f, key, i, n, 0x7FFFFFFFu)); break;
      case ElemType::U8: static_cast<uint8_t*>(p)[i] = byte_at(f, key, i, n); break;
    }
  }
}

// A byte fill, four bytes a thread: one hash makes a group's four (fill_bits.h), written as one
// 4-byte word where the buffer is aligned for it.
__global__ void fill_bytes_kernel(uint8_t* p, Fill f, uint64_t key, uint64_t n) {
  const uint64_t groups = (n + 3) / 4;
  const bool words = (reinterpret_cast<uintptr_t>(p) & 3) == 0;
  for (uint64_t g = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; g < groups;
       g += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t bits = mix64(key + g), first = 4 * g;
    if (words && first + 4 <= n) {
      uint32_t word = 0;
      for (unsigned k = 0; k < 4; ++k) word |= uint32_t(byte_from_hash(f, bits, first + k, n)) << (8 * k);
      reinterpret_cast<uint32_t*>(p)[g] = word;  // little-endian: byte first + k is bits 8k..8k+7
    } else {
      for (uint64_t i = first; i < n && i < first + 4; ++i) p[i] = byte_from_hash(f, bits, i, n);
    }
  }
}

}  // namespace

void fill_on_device(void* p, const BufferSpec& b) {
  if (b.count == 0) return;
  const uint64_t key = fill_key(b.fill);
  const uint64_t threads = b.type == ElemType::U8 ? (b.count + 3) / 4 : b.count;
  const unsigned blocks = unsigned(std::min<uint64_t>((threads + 255) / 256, 4096));
  if (b.type == ElemType::U8)
    fill_bytes_kernel<<<blocks, 256>>>(static_cast<uint8_t*>(p), b.fill, key, b.count);
  else
    fill_kernel<<<blocks, 256>>>(p, b.type, b.fill, key, b.count);
  require(cudaGetLastError(), "filling " + b.name);
}

}  // namespace cudalab::wire
