// What the runner tells the checker about where kernels run: the GPU, or the CPU backend.
#include <cuda_runtime.h>

#include <string>

#include "runner_parts.h"

namespace cudalab::run {

const char* backend_name() {
#ifdef CUDALAB_BACKEND_CPU
  return "cpu";
#else
  return "cuda";
#endif
}

[[maybe_unused]] static std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

wire::DeviceInfo query_device() {
  wire::DeviceInfo d;
#ifdef CUDALAB_BACKEND_CPU
  // No compute capability or driver to claim: the emulator is not a GPU.
  d.usable = true;
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);  // the emulator's workers are its multiprocessors
  d.name = "cudalab CPU emulator, " + std::to_string(p.multiProcessorCount) + " worker threads";
  return d;
#else
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    d.problem = std::string("no usable CUDA GPU here (") +
                (e != cudaSuccess ? cudaGetErrorString(e) : "no devices found") +
                "). To run on the CPU instead: make BACKEND=cpu <target>";
    return d;
  }
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp p{};
  if ((e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) {
    d.problem = std::string("cudaGetDeviceProperties failed: ") + cudaGetErrorString(e);
    return d;
  }
  d.usable = true;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.l2_bytes = uint64_t(p.l2CacheSize);
  d.memory_bytes = p.totalGlobalMem;
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) d.driver_version = version_text(v);
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) d.runtime_version = version_text(v);
  return d;
#endif
}

}  // namespace cudalab::run
