// The runner's GPU-only pieces: fills, the L2 flush, the launch record's self-test.
#include <cuda_runtime.h>

#include "device_buffers.h"
#include "launch_record.h"
#include "runner_parts.h"
#include "wire/cuda_errors.h"
#include "wire/fill_gpu.h"

namespace cudalab::run {
namespace {

__global__ void self_test_kernel() {}

}  // namespace

void fill_random(void* p, const wire::BufferSpec& b) { wire::fill_on_device(p, b); }

// Writes a buffer twice the L2's size, so no repetition finds its inputs cached: with
// cudaMemsetAsync, as the checker's own timer does for the baselines (checker/gpu/timer.cu), so
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
  require(cudaMemsetAsync(buf, 0x5A, bytes), "flushing the L2 cache");
}

// A GPU keeps device memory from host code and schedules threads itself.
void run_lab_host_code(const wire::CallRequest&, const EntryArgs&, const std::function<void()>& body) { body(); }

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
