// The runner's GPU fills (wire/fill_gpu.cu) make the host's bits (wire/fill.h), for every element
// type: byte fills four to a hash, in words or, at an odd start or an odd end, byte by byte.
// Run on a GPU: make build/cuda/tests/fill_agreement && build/cuda/tests/fill_agreement
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "runner/copy_check.h"  // linked as a runner is (--wrap): its own copies call the runtime directly
#include "wire/fill.h"
#include "wire/fill_gpu.h"

using namespace cudalab;

namespace {

template <class T>
int differences(wire::ElemType type, size_t count, size_t offset_bytes, float lo, float hi, float power) {
  wire::BufferSpec b;
  b.name = "fill_agreement";
  b.type = type;
  b.count = count;
  b.fill = wire::uniform_fill(99, 3, lo, hi);
  b.fill.power = power;
  b.fill.last_scale = 0.5f;
  char* base = nullptr;
  if (cudaMalloc(&base, count * sizeof(T) + 16) != cudaSuccess) return -1;
  wire::fill_on_device(base + offset_bytes, b);
  std::vector<T> got(count), want(count);
  __real_cudaMemcpy(got.data(), base + offset_bytes, count * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(base);
  wire::fill_host(want.data(), b.fill, count);
  int diff = 0;
  for (size_t i = 0; i < count; ++i) diff += std::memcmp(&got[i], &want[i], sizeof(T)) != 0;
  std::printf("%s %-4s n=%zu start+%zu: %d of %zu elements differ\n", diff ? "FAIL" : "PASS",
              sizeof(T) == 1 ? "u8" : "word", count, offset_bytes, diff, count);
  return diff;
}

}  // namespace

int main() {
  int bad = 0;
  for (size_t n : {size_t(1), size_t(7), size_t(4096), size_t(1) << 24 | 3})
    for (size_t offset : {0, 1, 3}) bad += differences<uint8_t>(wire::ElemType::U8, n, offset, 0, 256, offset ? 3 : 1) != 0;
  bad += differences<float>(wire::ElemType::F32, (size_t(1) << 22) + 5, 0, -1, 1, 1) != 0;
  bad += differences<uint32_t>(wire::ElemType::U32, 100003, 0, 0, 1e6f, 2) != 0;
  std::printf("%s\n", bad ? "FAIL  the GPU's fills differ from the host's" : "PASS  the GPU's fills make the host's bits");
  return bad ? 1 : 0;
}
