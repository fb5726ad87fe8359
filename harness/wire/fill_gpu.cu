// Random fills made on the device, for the runner's inputs and the checker's own timing
// baselines (no host copy of the input needed). The same bits as harness/wire/fill.h: every
// float operation rounded on its own (__fmul_rn and __fadd_rn cannot be fused into an FMA).
#include <cuda_runtime.h>

#include <algorithm>

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
      case ElemType::U8: static_cast<uint8_t*>(p)[i] = uint8_t(integer_at(f, key, i, n, 255)); break;
    }
  }
}

}  // namespace

void fill_on_device(void* p, const BufferSpec& b) {
  if (b.count == 0) return;
  const uint64_t key = fill_key(b.fill);
  const unsigned blocks = unsigned(std::min<uint64_t>((b.count + 255) / 256, 4096));
  fill_kernel<<<blocks, 256>>>(p, b.type, b.fill, key, b.count);
  require(cudaGetLastError(), "filling " + b.name);
}

}  // namespace cudalab::wire
