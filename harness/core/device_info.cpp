#include "device_info.h"

#include <cuda_runtime.h>

namespace cudalab {

const char* backend_name() {
#ifdef CUDALAB_BACKEND_CPU
  return "cpu";
#else
  return "cuda";
#endif
}

static std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

DeviceInfo query_device() {
  DeviceInfo d;
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
  d.l2_bytes = size_t(p.l2CacheSize);
  d.memory_bytes = p.totalGlobalMem;
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) d.driver_version = version_text(v);
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) d.runtime_version = version_text(v);
  return d;
}

}  // namespace cudalab
