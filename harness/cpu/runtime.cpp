// cudalab CPU backend: the CUDA runtime calls, on host memory.
//
// "Device" memory is host memory, remembered so that cudaFree and cudaMemcpy can reject what a
// GPU would reject. Each allocation is its own mapping between inaccessible guard regions, so a
// kernel that writes far out of bounds faults (the emulator reports cudaErrorIllegalAddress
// naming kernel, block and thread, as a GPU would) instead of corrupting the host heap. Under
// AddressSanitizer and ThreadSanitizer it is plain aligned heap memory (ASan's redzones catch
// overruns exactly; the sanitizers own the fault handling). Kernels run synchronously at
// launch, so events are wall-clock timers and streams run in order.
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "emulator.h"

namespace {

std::mutex g_mutex;
std::map<const char*, size_t> g_allocations;  // device allocations: start -> bytes

#if defined(CUDALAB_CPU_ASAN) || defined(CUDALAB_CPU_TSAN)
const bool kGuardPages = false;
#else
const bool kGuardPages = true;
#endif
const size_t kPage = 4096;
// Guard regions are reserved address space, never memory: an index off by a whole array
// (in[i + n]) or a stray negative one lands in them. 1 MB before, and after at least 1 MB or the
// allocation's own size. (The harness's guard words past an array's elements are part of the
// allocation, so small overruns stay visible to it as wrong guard values.)
size_t lead_guard() { return 1 << 20; }
size_t trail_guard(size_t bytes) { return std::max<size_t>(1 << 20, (bytes + kPage - 1) / kPage * kPage); }
size_t mapped_bytes(size_t bytes) { return lead_guard() + (bytes + kPage - 1) / kPage * kPage + trail_guard(bytes); }

void* map_with_guards(size_t bytes) {
  void* region = mmap(nullptr, mapped_bytes(bytes), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) return nullptr;
  char* data = static_cast<char*>(region) + lead_guard();
  if (mprotect(data, (bytes + kPage - 1) / kPage * kPage, PROT_READ | PROT_WRITE) != 0) {
    munmap(region, mapped_bytes(bytes));
    return nullptr;
  }
  return data;
}
void unmap_with_guards(void* p, size_t bytes) { munmap(static_cast<char*>(p) - lead_guard(), mapped_bytes(bytes)); }
cudaError_t g_last = cudaSuccess;
cudaError_t g_pending = cudaSuccess;
std::string g_pending_text;
std::string g_failure_text;  // what cudaGetErrorString says for the last kernel failure
cudaError_t g_failure_code = cudaSuccess;

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) g_last = e;
  return e;
}

// A kernel failure is reported once, by the first call that waits for the device.
cudaError_t take_pending() {
  std::lock_guard<std::mutex> lock(g_mutex);
  cudaError_t e = g_pending;
  g_pending = cudaSuccess;
  if (e != cudaSuccess) g_last = e;
  return e;
}

// True if [p, p+bytes) lies inside a device allocation, or p is not device memory at all.
bool range_ok(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto c = static_cast<const char*>(p);
  auto it = g_allocations.upper_bound(c);
  if (it == g_allocations.begin()) return true;
  --it;
  if (c >= it->first + it->second) return true;  // past that allocation: host memory
  return c + bytes <= it->first + it->second;
}

cudaError_t device_alloc(void** p, size_t bytes) {
  if (!p) return record(cudaErrorInvalidValue);
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  void* q = nullptr;
  if (kGuardPages) q = map_with_guards(bytes);
  else if (posix_memalign(&q, 256, bytes) != 0) q = nullptr;
  if (!q) return record(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_allocations[static_cast<const char*>(q)] = bytes;
  *p = q;
  return cudaSuccess;
}

struct Event {
  std::chrono::steady_clock::time_point t;
  bool recorded = false;
};

const char* error_name(cudaError_t e) {
  switch (e) {
#define N(x) case x: return #x;
    N(cudaSuccess) N(cudaErrorInvalidValue) N(cudaErrorMemoryAllocation) N(cudaErrorInitializationError)
    N(cudaErrorCudartUnloading) N(cudaErrorInvalidConfiguration) N(cudaErrorInvalidPitchValue)
    N(cudaErrorInvalidSymbol) N(cudaErrorInvalidHostPointer) N(cudaErrorInvalidDevicePointer)
    N(cudaErrorInvalidTexture) N(cudaErrorInvalidMemcpyDirection) N(cudaErrorInsufficientDriver)
    N(cudaErrorInvalidDeviceFunction) N(cudaErrorNoDevice) N(cudaErrorInvalidDevice) N(cudaErrorInvalidKernelImage)
    N(cudaErrorInvalidResourceHandle) N(cudaErrorNotReady) N(cudaErrorIllegalAddress)
    N(cudaErrorLaunchOutOfResources) N(cudaErrorLaunchTimeout) N(cudaErrorHardwareStackError)
    N(cudaErrorIllegalInstruction) N(cudaErrorMisalignedAddress) N(cudaErrorInvalidAddressSpace)
    N(cudaErrorInvalidPc) N(cudaErrorLaunchFailure) N(cudaErrorCooperativeLaunchTooLarge) N(cudaErrorAssert)
    N(cudaErrorECCUncorrectable) N(cudaErrorNotSupported) N(cudaErrorUnknown)
#undef N
  }
  return "cudaErrorUnknown";
}

}  // namespace

namespace cudalab_cpu::detail {
// Runs in the fault handler: no allocation, and no waiting for a lock another thread may hold.
bool describe_device_address(const void* addr, char* text, size_t size) {
  if (!kGuardPages || !g_mutex.try_lock()) return false;
  std::lock_guard<std::mutex> lock(g_mutex, std::adopt_lock);
  auto c = static_cast<const char*>(addr);
  for (auto& [start, bytes] : g_allocations) {
    if (c >= start + bytes && c < start + bytes + trail_guard(bytes) + kPage) {
      std::snprintf(text, size, "%zu bytes past the end of a %zu-byte cudaMalloc allocation", size_t(c - start - bytes), bytes);
      return true;
    }
    if (c < start && c >= start - lead_guard()) {
      std::snprintf(text, size, "%zu bytes before the start of a %zu-byte cudaMalloc allocation", size_t(start - c), bytes);
      return true;
    }
  }
  return false;
}
void set_last_error(cudaError_t e) { g_last = e; }
void set_pending_error(cudaError_t e, const std::string& text) {
  std::lock_guard<std::mutex> lock(g_mutex);
  // Like an asynchronous kernel fault: the launch itself succeeded; the next call that waits
  // for the device returns the error (and from then on cudaGetLastError does too).
  g_pending = e;
  g_failure_text = text.rfind("cudalab: ", 0) == 0 ? text.substr(9) : text;
  g_failure_code = e;
}
}  // namespace cudalab_cpu::detail

// The kernel runner's record of GPU data made reachable from the host (cuda_runtime.h).
static cudalab_cpu::HostDataObserver g_host_data_observer = nullptr;
void cudalab_cpu::set_host_data_observer(HostDataObserver observer) { g_host_data_observer = observer; }

cudaError_t cudaMalloc(void** p, size_t bytes) { return device_alloc(p, bytes); }
cudaError_t cudaMallocManaged(void** p, size_t bytes, unsigned) {
  if (g_host_data_observer) g_host_data_observer(bytes);
  return device_alloc(p, bytes);
}
cudaError_t cudaMallocHost(void** p, size_t bytes) {
  if (!p) return record(cudaErrorInvalidValue);
  if (g_host_data_observer) g_host_data_observer(bytes);
  *p = std::malloc(bytes ? bytes : 1);
  return *p ? cudaSuccess : record(cudaErrorMemoryAllocation);
}
cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned) { return cudaMallocHost(p, bytes); }
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return record(cudaErrorInvalidValue);
  *pitch = (width + 255) / 256 * 256;
  return device_alloc(p, *pitch * height);
}
cudaError_t cudaFree(void* p) {
  if (!p) return cudaSuccess;
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_allocations.find(static_cast<const char*>(p));
    if (it == g_allocations.end()) return record(cudaErrorInvalidValue);  // not from cudaMalloc, or freed twice
    bytes = it->second;
    g_allocations.erase(it);
  }
  if (kGuardPages) unmap_with_guards(p, bytes);
  else std::free(p);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) {
  std::free(p);
  return cudaSuccess;
}

// Whether p lies inside memory cudaMalloc returned.
static bool in_device_allocation(const void* p) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_allocations.upper_bound(static_cast<const char*>(p));
  if (it == g_allocations.begin()) return false;
  --it;
  return static_cast<const char*>(p) < it->first + it->second;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (cudaError_t e = take_pending(); e != cudaSuccess) return e;
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return record(cudaErrorInvalidValue);
  if (int(kind) < 0 || int(kind) > 4) return record(cudaErrorInvalidMemcpyDirection);
  if (!range_ok(dst, bytes) || !range_ok(src, bytes)) return record(cudaErrorInvalidValue);
  if (g_host_data_observer && in_device_allocation(src) && !in_device_allocation(dst)) g_host_data_observer(bytes);
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, bytes, kind);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; ++r) {
    cudaError_t e = cudaMemcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemset(void* p, int value, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  if (!p) return record(cudaErrorInvalidValue);
  if (!range_ok(p, bytes)) return record(cudaErrorInvalidValue);
  std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t) { return cudaMemset(p, value, bytes); }
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  struct sysinfo si {};
  sysinfo(&si);
  if (free_bytes) *free_bytes = size_t(si.freeram) * si.mem_unit;
  if (total_bytes) *total_bytes = size_t(si.totalram) * si.mem_unit;
  return cudaSuccess;
}
cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t) { return cudaSuccess; }

cudaError_t cudaDeviceSynchronize() { return take_pending(); }
cudaError_t cudaThreadSynchronize() { return take_pending(); }
cudaError_t cudaDeviceReset() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_pending = cudaSuccess;
  g_last = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaGetLastError() {
  cudaError_t e = g_last;
  g_last = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return g_last; }
const char* cudaGetErrorName(cudaError_t e) { return error_name(e); }
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress:
      if (g_failure_code == e) return g_failure_text.c_str();
      return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure:
      // The emulator knows what went wrong; say it instead of CUDA's "unspecified".
      if (g_failure_code == e) return g_failure_text.c_str();
      return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error";
  }
}
cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return record(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (!device) return record(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : record(cudaErrorInvalidDevice); }
cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (!p) return record(cudaErrorInvalidValue);
  if (device != 0) return record(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "cudalab CPU emulator (%d worker%s)", cudalab_cpu::worker_count(),
                cudalab_cpu::worker_count() == 1 ? "" : "s");
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  // Limits as on a recent GPU (compute capability 8.0), so that lab code sizes things the same.
  p->totalGlobalMem = total_b;
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerBlockOptin = 227 * 1024;
  p->sharedMemPerMultiprocessor = 228 * 1024;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = 8;
  p->minor = 0;
  p->textureAlignment = 512;
  p->multiProcessorCount = cudalab_cpu::worker_count();
  p->maxThreadsPerMultiProcessor = 2048;
  p->maxBlocksPerMultiProcessor = 32;
  p->l2CacheSize = 4 * 1024 * 1024;
  p->memoryBusWidth = 64;
  p->unifiedAddressing = 1;
  p->managedMemory = 1;
  p->canMapHostMemory = 1;
  p->concurrentKernels = 0;
  p->integrated = 1;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int device) {
  if (!v) return record(cudaErrorInvalidValue);
  cudaDeviceProp p;
  if (cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return e;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *v = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = int(p.sharedMemPerBlockOptin); break;
    default: *v = 0; break;
  }
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return record(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) { return cudaDriverGetVersion(v); }
cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return cudaSuccess; }
cudaError_t cudaDeviceGetLimit(size_t* v, cudaLimit) {
  if (v) *v = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (!e) return record(cudaErrorInvalidValue);
  *e = reinterpret_cast<cudaEvent_t>(new Event);
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (!e) return record(cudaErrorInvalidResourceHandle);
  auto* ev = reinterpret_cast<Event*>(e);
  ev->t = std::chrono::steady_clock::now();  // launches are synchronous: now is when the work is done
  ev->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  if (!e) return record(cudaErrorInvalidResourceHandle);
  return take_pending();
}
cudaError_t cudaEventQuery(cudaEvent_t e) { return e ? cudaSuccess : record(cudaErrorInvalidResourceHandle); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms || !a || !b) return record(cudaErrorInvalidValue);
  auto* x = reinterpret_cast<Event*>(a);
  auto* y = reinterpret_cast<Event*>(b);
  if (!x->recorded || !y->recorded) return record(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(y->t - x->t).count();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<Event*>(e);
  return cudaSuccess;
}

static void note_streams_serial() {
  static bool said = false;
  if (said) return;
  said = true;
  std::fprintf(stderr, "cudalab: note: the CPU backend runs streams one after another, not concurrently; results "
                       "are the same, overlap is not emulated.\n");
}
cudaError_t cudaStreamCreate(cudaStream_t* s) {
  if (!s) return record(cudaErrorInvalidValue);
  note_streams_serial();
  *s = reinterpret_cast<cudaStream_t>(new char(0));
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { return cudaStreamCreate(s); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete reinterpret_cast<char*>(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return take_pending(); }
cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }
