// The GPU's launch record, and the runtime calls the runner must see (data reaching the host,
// streams). `kernel<<<g, b, s, st>>>(...)` compiles (CUDA 13) into a call of
// the runtime's __cudaLaunchKernel; cudaLaunchKernel, cudaLaunchKernelExC and
// cudaLaunchCooperativeKernel are the explicit forms. The runner links the shared CUDA runtime
// and defines these entry points itself: each records the launch, then forwards to the
// runtime's own (found with dlsym(RTLD_NEXT)). A self-test at start-up (launch_record_self_test)
// tells the checker whether the record works on this toolkit; when it does not, the checker
// does not judge "no kernel ran".
#include <cuda_runtime.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "launch_record.h"

namespace cudalab::run {
namespace {

std::mutex g_names_mutex;
std::map<const void*, std::string> g_names;  // handle or function -> readable name

std::string readable(const char* mangled) {
  if (!mangled) return "?";
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : mangled;
  std::free(d);
  if (auto paren = s.find('('); paren != std::string::npos) s.resize(paren);  // the name, not the signature
  return s;
}

std::string name_of(const void* func_or_handle) {
  std::lock_guard<std::mutex> lock(g_names_mutex);
  auto it = g_names.find(func_or_handle);
  if (it != g_names.end()) return it->second;
  const char* name = nullptr;
  std::string s = cudaFuncGetName(&name, func_or_handle) == cudaSuccess ? readable(name) : "a kernel";
  cudaGetLastError();
  g_names[func_or_handle] = s;
  return s;
}

void record(const void* func, dim3 g, dim3 b, size_t shared) {
  const unsigned grid[3] = {g.x, g.y, g.z}, block[3] = {b.x, b.y, b.z};
  record_launch(name_of(func).c_str(), grid, block, shared);
}

template <class F>
F next(const char* symbol) {
  void* p = dlsym(RTLD_NEXT, symbol);
  if (!p) {
    std::fprintf(stderr, "cudalab runner: the CUDA runtime has no %s\n", symbol);
    std::abort();
  }
  return reinterpret_cast<F>(p);
}

}  // namespace
}  // namespace cudalab::run

using cudalab::run::next;
using cudalab::run::record;

extern "C" {

// Maps a kernel's handle to its host function, so launches by handle have a name.
cudaError_t __cudaGetKernel(cudaKernel_t* handle, const void* func) {
  static auto real = next<cudaError_t (*)(cudaKernel_t*, const void*)>("__cudaGetKernel");
  cudaError_t e = real(handle, func);
  if (e == cudaSuccess && handle && *handle) {
    std::string name = cudalab::run::name_of(func);
    std::lock_guard<std::mutex> lock(cudalab::run::g_names_mutex);
    cudalab::run::g_names[static_cast<const void*>(*handle)] = name;
  }
  return e;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  static auto real =
      next<cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t)>("__cudaLaunchKernel");
  record(static_cast<const void*>(k), g, b, shared);
  return real(k, g, b, args, shared, s);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  static auto real =
      next<cudaError_t (*)(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t)>("__cudaLaunchKernel_ptsz");
  record(static_cast<const void*>(k), g, b, shared);
  return real(k, g, b, args, shared, s);
}

cudaError_t cudaLaunchKernel(const void* f, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  static auto real = next<cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t)>("cudaLaunchKernel");
  record(f, g, b, shared);
  return real(f, g, b, args, shared, s);
}

cudaError_t cudaLaunchCooperativeKernel(const void* f, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  static auto real =
      next<cudaError_t (*)(const void*, dim3, dim3, void**, size_t, cudaStream_t)>("cudaLaunchCooperativeKernel");
  record(f, g, b, shared);
  return real(f, g, b, args, shared, s);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* f, void** args) {
  static auto real = next<cudaError_t (*)(const cudaLaunchConfig_t*, const void*, void**)>("cudaLaunchKernelExC");
  if (config) record(f, config->gridDim, config->blockDim, config->dynamicSmemBytes);
  return real(config, f, args);
}

// ---- Data reaching the host ----------------------------------------------------------------
// (cudaMemcpy and cudaMemcpyAsync of the lab's are checked, and refused unless both ends are on
// the device, by runner/copy_check.cpp: the runner is linked with --wrap for them.)
// Whether a copy of this kind from src reads GPU memory into host memory.
static bool device_to_host(const void* dst, const void* src, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDeviceToHost) return true;
  if (kind != cudaMemcpyDefault) return false;
  cudaPointerAttributes s{}, d{};
  const bool ok = cudaPointerGetAttributes(&s, src) == cudaSuccess && cudaPointerGetAttributes(&d, dst) == cudaSuccess;
  cudaGetLastError();
  return ok && s.type == cudaMemoryTypeDevice && d.type != cudaMemoryTypeDevice;
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  static auto real =
      next<cudaError_t (*)(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind)>("cudaMemcpy2D");
  if (device_to_host(dst, src, kind)) cudalab::run::record_bytes_to_host(uint64_t(width) * height);
  return real(dst, dpitch, src, spitch, width, height, kind);
}

// Host-visible memory: a kernel could write its input there for the host to finish the work.
cudaError_t cudaMallocHost(void** p, size_t bytes) {
  static auto real = next<cudaError_t (*)(void**, size_t)>("cudaMallocHost");
  cudalab::run::record_bytes_to_host(bytes);
  return real(p, bytes);
}

cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned flags) {
  static auto real = next<cudaError_t (*)(void**, size_t, unsigned)>("cudaHostAlloc");
  cudalab::run::record_bytes_to_host(bytes);
  return real(p, bytes, flags);
}

cudaError_t cudaMallocManaged(void** p, size_t bytes, unsigned flags) {
  static auto real = next<cudaError_t (*)(void**, size_t, unsigned)>("cudaMallocManaged");
  cudalab::run::record_bytes_to_host(bytes);
  return real(p, bytes, flags);
}

cudaError_t cudaHostRegister(void* p, size_t bytes, unsigned flags) {
  static auto real = next<cudaError_t (*)(void*, size_t, unsigned)>("cudaHostRegister");
  cudalab::run::record_bytes_to_host(bytes);
  return real(p, bytes, flags);
}

// ---- Streams --------------------------------------------------------------------------------
// Every stream the lab's code makes is a blocking one: the timing's stop event, recorded on the
// legacy default stream, then waits for work on all of them (a non-blocking stream's work would
// escape it). Correctness is unchanged: the lab synchronizes before returning anyway.
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
  static auto real = next<cudaError_t (*)(cudaStream_t*, unsigned)>("cudaStreamCreateWithFlags");
  return real(s, flags & ~unsigned(cudaStreamNonBlocking));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags, int priority) {
  static auto real = next<cudaError_t (*)(cudaStream_t*, unsigned, int)>("cudaStreamCreateWithPriority");
  return real(s, flags & ~unsigned(cudaStreamNonBlocking), priority);
}

}  // extern "C"
