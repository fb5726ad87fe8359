#include "copy_check.h"

#include <atomic>
#include <mutex>

namespace cudalab::run {
namespace {

std::mutex g_mutex;
std::optional<RefusedCopy> g_refused;
std::atomic<uint64_t> g_device_bytes{0};

const char* direction_of(bool dst_on_device, bool src_on_device) {
  if (dst_on_device) return "host_to_device";
  return src_on_device ? "device_to_host" : "host_to_host";
}

// Whether the copy may happen; a refusal is remembered (the first one of the call).
bool copy_allowed(const char* call, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (bytes == 0) return true;
  const bool dst_dev = is_device_memory(dst, bytes), src_dev = is_device_memory(src, bytes);
  const bool device_kind = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault;
  if (dst_dev && src_dev && device_kind) {
    g_device_bytes += bytes;
    return true;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_refused) g_refused = RefusedCopy{call, direction_of(dst_dev, src_dev)};
  return false;
}

bool fill_allowed(const char* call, void* p, size_t bytes) {
  if (bytes == 0 || is_device_memory(p, bytes)) return true;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_refused) g_refused = RefusedCopy{call, "host"};
  return false;
}

}  // namespace

std::optional<RefusedCopy> take_refused_copy() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::optional<RefusedCopy> out;
  out.swap(g_refused);
  return out;
}

uint64_t take_device_copy_bytes() { return g_device_bytes.exchange(0); }

}  // namespace cudalab::run

using cudalab::run::copy_allowed;
using cudalab::run::fill_allowed;

extern "C" {

cudaError_t __wrap_cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (!copy_allowed("cudaMemcpy", dst, src, bytes, kind)) return cudaErrorNotPermitted;
  return __real_cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t __wrap_cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
  if (!copy_allowed("cudaMemcpyAsync", dst, src, bytes, kind)) return cudaErrorNotPermitted;
  return __real_cudaMemcpyAsync(dst, src, bytes, kind, s);
}

cudaError_t __wrap_cudaMemset(void* p, int value, size_t bytes) {
  if (!fill_allowed("cudaMemset", p, bytes)) return cudaErrorNotPermitted;
  return __real_cudaMemset(p, value, bytes);
}

cudaError_t __wrap_cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t s) {
  if (!fill_allowed("cudaMemsetAsync", p, bytes)) return cudaErrorNotPermitted;
  return __real_cudaMemsetAsync(p, value, bytes, s);
}

}  // extern "C"
