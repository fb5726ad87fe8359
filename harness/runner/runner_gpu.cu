// The runner's GPU-only pieces: fills, the L2 flush, gathering sampled elements, the launch
// record's self-test.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "copy_check.h"
#include "device_buffers.h"
#include "launch_record.h"
#include "runner_parts.h"
#include "wire/cuda_errors.h"
#include "wire/fill_gpu.h"

namespace cudalab::run {
namespace {

__global__ void self_test_kernel() {}

__global__ void guards_kernel(uint8_t* at, uint64_t salt) {
  for (uint64_t g = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; g < wire::kGuardElements;
       g += gridDim.x * blockDim.x) {
    const uint32_t word = wire::guard_word(salt, g);
    for (unsigned k = 0; k < 4; ++k) at[4 * g + k] = uint8_t(word >> (8 * k));  // little-endian, as the host's
  }
}

__global__ void gather_kernel(const uint8_t* p, size_t elem_bytes, const uint64_t* indices, size_t n, uint8_t* out) {
  for (size_t s = blockIdx.x * size_t(blockDim.x) + threadIdx.x; s < n; s += size_t(gridDim.x) * blockDim.x)
    for (size_t b = 0; b < elem_bytes; ++b) out[s * elem_bytes + b] = p[indices[s] * elem_bytes + b];
}

// Device memory for the gathers, kept from one to the next (a timed batch gathers from a few
// outputs in a row) and grown when a larger one comes.
void* gather_scratch(size_t bytes) {
  static void* scratch = nullptr;
  static size_t have = 0;
  if (bytes > have) {
    if (scratch) cudaFree(scratch);
    scratch = nullptr;
    have = 0;
    require(cudaMalloc(&scratch, bytes), "allocating room to gather sampled elements");
    have = bytes;
  }
  return scratch;
}

}  // namespace

// The runtime's pointer attributes: device memory of this process (cudaMalloc's), never managed
// or host memory. (The extent is the runtime's to check: a copy past an allocation's end fails
// there, and device addresses never reach host memory.)
bool is_device_memory(const void* p, size_t) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // not the lab's error: the answer is "no"
    return false;
  }
  return a.type == cudaMemoryTypeDevice && a.devicePointer != nullptr;
}

// One small kernel: a few thousand elements cost one launch and two small copies, where a
// cudaMemcpy per element would cost a few microseconds each.
void gather_elements(const void* p, size_t elem_bytes, const std::vector<uint64_t>& indices, void* out) {
  if (indices.empty()) return;
  const size_t index_bytes = indices.size() * sizeof(uint64_t), value_bytes = indices.size() * elem_bytes;
  uint8_t* scratch = static_cast<uint8_t*>(gather_scratch(index_bytes + value_bytes));
  uint64_t* device_indices = reinterpret_cast<uint64_t*>(scratch);
  require(__real_cudaMemcpy(device_indices, indices.data(), index_bytes, cudaMemcpyHostToDevice),
          "copying the drawn indices");
  const unsigned blocks = unsigned(std::min<size_t>((indices.size() + 255) / 256, 1024));
  gather_kernel<<<blocks, 256>>>(static_cast<const uint8_t*>(p), elem_bytes, device_indices, indices.size(),
                                 scratch + index_bytes);
  require(cudaGetLastError(), "gathering sampled elements");
  require(__real_cudaMemcpy(out, scratch + index_bytes, value_bytes, cudaMemcpyDeviceToHost),
          "copying sampled elements back");
}

void fill_random(void* p, const wire::BufferSpec& b) { wire::fill_on_device(p, b); }

void write_guards(void* at, uint64_t salt) {
  guards_kernel<<<unsigned(wire::kGuardElements / 256), 256>>>(static_cast<uint8_t*>(at), salt);
  require(cudaGetLastError(), "setting the guards");
}

// Writes a buffer twice the L2's size, so no repetition finds its inputs cached: with
// cudaMemsetAsync, as the checker's own timer does for the baselines (checker/gpu/timer.cpp), so
// that the student's row and the CUB row are measured the same way.
void flush_l2_cache() {
  static void* buf = nullptr;
  static size_t bytes = 0;
  if (!buf) {
    int dev = 0, l2 = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    bytes = size_t(l2 > 0 ? l2 : 64 << 20) * 2;
    require(cudaMalloc(&buf, bytes), "allocating the L2 flush buffer");
  }
  require(__real_cudaMemsetAsync(buf, 0x5A, bytes, nullptr), "flushing the L2 cache");
}

// A GPU keeps device memory from host code and schedules threads itself.
// The lab's own code inside an NVTX range, "cudalab-lab": Nsight Compute (PROFILE=1,
// tools/gpu/gpu_profile.sh) profiles only the kernels launched in it, never the runner's fills,
// guards and gathers. Without a tool attached the range costs a check of an environment variable.
void run_lab_host_code(const wire::CallRequest&, const EntryArgs&, const std::function<void()>& body) {
  struct Range {
    Range() { nvtxRangePushA("cudalab-lab"); }
    ~Range() { nvtxRangePop(); }
  } range;
  body();
}

bool launch_record_self_test() {
  launch_record_start();
  self_test_kernel<<<1, 1>>>();
  launch_record_stop();
  cudaDeviceSynchronize();
  cudaGetLastError();
  uint64_t total = 0;
  launch_record_take(total);
  return total == 1;
}

}  // namespace cudalab::run
