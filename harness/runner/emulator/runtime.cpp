// cudalab CPU backend: the CUDA runtime calls, on host memory.
//
// "Device" memory is host memory, remembered so that cudaFree and cudaMemcpy can reject what a
// GPU would reject. Each allocation is its own mapping between inaccessible guard regions, so a
// kernel that writes far out of bounds faults (the emulator reports cudaErrorIllegalAddress
// naming kernel, block and thread, as a GPU would) instead of corrupting the host heap. Under
// AddressSanitizer it is plain aligned heap memory (ASan's redzones catch overruns exactly; the
// sanitizer owns the fault handling); CHECK=race (the emulator's own detector) keeps the guards. Kernels run synchronously at
// launch, so events are wall-clock timers and streams run in order.
//
// Device memory is not host memory on a GPU: while the lab's host code runs (control.h:
// run_host_code) every allocation is PROT_NONE, opened only while a kernel runs or a copy or
// fill of the runtime's own touches it, so host code that reads d_in faults as it would there.
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "arena.h"
#include "control.h"
#include "emulator.h"

namespace {

namespace arena = cudalab_cpu::arena;

#if defined(CUDALAB_CPU_ASAN)
const bool kGuardPages = false;
#else
const bool kGuardPages = true;
#endif
const size_t kPage = 4096;
const unsigned char kSlackPoison = 0xFF;  // a NaN as float, 0xFFFFFFFF as an integer

// One device allocation. With guard pages it is a mapping of its own: `lead` bytes of
// reserved, inaccessible address space, the data's pages, then at least as much inaccessible
// space again. The harness's buffers (and anything allocated outside the lab's host code)
// start at their first page, as they always did: the harness's guard words follow the data.
// The lab's own allocations (made while its host code runs) end at the last byte of their last
// page (start 16-byte aligned), so one element past the end is an inaccessible page; the few
// bytes of the page around them (the slack) hold kSlackPoison, and a kernel that writes there
// fails its launch like one that faults.
struct Allocation {
  size_t bytes = 0;  // what cudaMalloc was asked for
  char* region = nullptr;  // the whole mapping; nullptr: heap memory (sanitizer builds)
  size_t region_bytes = 0;
  char* pages = nullptr;  // the data's pages
  size_t page_bytes = 0;
  bool labs_own = false;  // made while the lab's host code ran: right-aligned, slack poisoned
  bool host_visible = false;  // cudaMallocManaged: never closed
  bool open = true;  // its pages are readable and writable now
  int in_use = 0;  // the runtime's own copies and fills touching it now
  bool kernel_touched = false;  // opened for the running launch, on its kernel's first touch
  std::string name;  // the runner's name for it; "" for the lab's own
  size_t array_bytes = SIZE_MAX;  // the runner's array in it; after it, the harness's guard words
};

std::mutex g_mutex;
std::map<const char*, Allocation> g_allocations;  // device allocations, by start
bool g_closed = false;  // the lab's host code runs: device memory is closed to it
int g_kernels = 0;  // launches running: their kernels may open what they touch
std::atomic<unsigned long long> g_protection_changes{0};

size_t lead_guard() { return 1 << 20; }
size_t round_to_pages(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }
// Guard regions are reserved address space, never memory: an index off by a whole array
// (in[i + n]) or a stray negative one lands in them. 1 MB before, and after at least 1 MB or the
// allocation's own size.
size_t trail_guard(size_t bytes) { return std::max<size_t>(1 << 20, round_to_pages(bytes)); }

bool wants_open(const Allocation& a) { return !g_closed || a.in_use > 0 || a.host_visible || a.kernel_touched; }
// Under g_mutex.
void apply(Allocation& a) {
  if (!a.region) return;
  const bool want = wants_open(a);
  if (want == a.open) return;
  arena::protect(a.pages, a.page_bytes, want ? PROT_READ | PROT_WRITE : PROT_NONE);
  a.open = want;
  g_protection_changes.fetch_add(1, std::memory_order_relaxed);
}
void apply_all() {
  for (auto& [start, a] : g_allocations) apply(a);
}

bool map_with_guards(Allocation& a, char** data) {
  const size_t pages = round_to_pages(a.bytes);
  a.region_bytes = lead_guard() + pages + trail_guard(a.bytes);
  char* region = arena::take(a.region_bytes);  // device memory's own addresses (arena.h)
  if (!region) return false;
  a.region = region;
  a.pages = a.region + lead_guard();
  a.page_bytes = pages;
  if (arena::protect(a.pages, pages, PROT_READ | PROT_WRITE) != 0) {
    arena::give_back(region, a.region_bytes);
    return false;
  }
  *data = a.pages;
  if (a.labs_own) {  // only the slack is written: the rest stays untouched (uncommitted) memory
    char* start = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(a.pages + pages - a.bytes) & ~uintptr_t(15));
    std::memset(a.pages, kSlackPoison, size_t(start - a.pages));
    std::memset(start + a.bytes, kSlackPoison, size_t(a.pages + pages - start - a.bytes));
    *data = start;
  }
  return true;
}
cudaError_t g_last = cudaSuccess;
cudaError_t g_pending = cudaSuccess;  // a kernel failed: the next call that waits for the device says so
cudaError_t g_sticky = cudaSuccess;  // and from then on every such call, as on a GPU (cudaDeviceReset ends it)
std::string g_pending_text;
std::string g_failure_text;  // what cudaGetErrorString says for the last kernel failure
cudaError_t g_failure_code = cudaSuccess;

cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) g_last = e;
  return e;
}

// A kernel failure is reported by the first call that waits for the device, and by every one
// after it: a GPU's context is lost after an illegal address or a failed launch, so lab code
// cannot read the error away (cudaGetLastError) and go on as if its kernel had worked.
cudaError_t take_pending() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_pending != cudaSuccess) g_sticky = g_pending, g_pending = cudaSuccess;
  if (g_sticky != cudaSuccess) g_last = g_sticky;
  return g_sticky;
}

// The allocation holding p (nullptr: not device memory). Under g_mutex.
Allocation* holding(const void* p) {
  auto c = static_cast<const char*>(p);
  auto it = g_allocations.upper_bound(c);
  if (it == g_allocations.begin()) return nullptr;
  --it;
  return c < it->first + it->second.bytes ? &it->second : nullptr;
}

// True if [p, p+bytes) lies inside a device allocation, or p is not device memory at all.
bool range_ok(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto c = static_cast<const char*>(p);
  auto it = g_allocations.upper_bound(c);
  if (it == g_allocations.begin()) return true;
  --it;
  if (c >= it->first + it->second.bytes) return true;  // past that allocation: host memory
  return c + bytes <= it->first + it->second.bytes;
}

// The runtime's own access to the device memory at p and q (a copy's two ends, a fill):
// opened for the duration while the lab's host code runs.
class Touch {
 public:
  Touch(const void* p, const void* q = nullptr) {
    if (!kGuardPages) return;
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_closed) return;
    for (const void* x : {p, q}) {
      Allocation* a = x ? holding(x) : nullptr;
      if (!a || a == a_[0]) continue;
      a_[a_[0] ? 1 : 0] = a;
      ++a->in_use;
      apply(*a);
    }
  }
  ~Touch() {
    if (!a_[0]) return;
    std::lock_guard<std::mutex> lock(g_mutex);
    for (Allocation* a : a_)
      if (a) --a->in_use, apply(*a);
  }
  Touch(const Touch&) = delete;
  Touch& operator=(const Touch&) = delete;

 private:
  Allocation* a_[2] = {nullptr, nullptr};  // allocations are never freed while in use (one thread's call)
};

cudaError_t device_alloc(void** p, size_t bytes, bool host_visible = false) {
  if (!p) return record(cudaErrorInvalidValue);
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  Allocation a;
  a.bytes = bytes;
  a.host_visible = host_visible;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    a.labs_own = g_closed;
  }
  char* q = nullptr;
  if (kGuardPages) {
    if (!map_with_guards(a, &q)) q = nullptr;
  } else {
    void* h = nullptr;
    if (posix_memalign(&h, 256, bytes) == 0) q = static_cast<char*>(h);
  }
  if (!q) return record(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(g_mutex);
  Allocation& stored = g_allocations[q] = std::move(a);
  apply(stored);  // closed at once while the lab's host code runs (unless a kernel runs)
  *p = q;
  return cudaSuccess;
}

// "the input array (...)" or "a 32-byte cudaMalloc allocation of yours". No allocation: for
// the fault handler.
void name_of(const Allocation& a, char* text, size_t size) {
  if (!a.name.empty())
    std::snprintf(text, size, "%s", a.name.c_str());
  else
    std::snprintf(text, size, "a %zu-byte cudaMalloc allocation%s", a.bytes, a.labs_own ? " of yours" : "");
}

struct Event {
  std::chrono::steady_clock::time_point t;
  bool recorded = false;
};

const char* error_name(cudaError_t e) {
  switch (e) {
// A list of macro uses, laid out by hand (the formatter cannot lay out a macro list).
// clang-format off
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
    N(cudaErrorECCUncorrectable) N(cudaErrorNotPermitted) N(cudaErrorNotSupported) N(cudaErrorUnknown)
#undef N
    // clang-format on
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
  for (auto& [start, a] : g_allocations) {
    if (c < a.region || c >= a.region + a.region_bytes || (c >= start && c < start + a.bytes)) continue;
    char name[256];
    name_of(a, name, sizeof name);
    if (c >= start + a.bytes)
      std::snprintf(text, size, "%zu bytes past the end of %s", size_t(c - start - a.bytes), name);
    else
      std::snprintf(text, size, "%zu bytes before the start of %s", size_t(start - c), name);
    return true;
  }
  return false;
}

// The same, for a fault in host code: inside an allocation too (closed to host code).
bool describe_host_access(const void* addr, char* text, size_t size) {
  if (!kGuardPages || !g_mutex.try_lock()) return false;
  std::lock_guard<std::mutex> lock(g_mutex, std::adopt_lock);
  auto c = static_cast<const char*>(addr);
  for (auto& [start, a] : g_allocations) {
    if (c < a.region || c >= a.region + a.region_bytes) continue;
    char name[256];
    name_of(a, name, sizeof name);
    if (c >= start + a.bytes)
      std::snprintf(text, size, "%zu bytes past the end of %s", size_t(c - start - a.bytes), name);
    else if (c < start)
      std::snprintf(text, size, "%zu bytes before the start of %s", size_t(start - c), name);
    else
      std::snprintf(text, size, "%s, at byte %zu", name, size_t(c - start));
    return true;
  }
  return false;
}

void close_device_memory(bool closed) {
  if (!kGuardPages) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_closed = closed;
  apply_all();
}
bool device_memory_closed() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_closed;
}

// Opening is left to the kernels' first touch (open_for_kernel): a launch pays for the
// allocations it reads and writes, not for every one (mprotect walks the page table entries:
// 10 ms there and back for 512 MB of 4 KB pages here).
void kernels_begin() {
  if (!kGuardPages) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_kernels;
}

int open_for_kernel(const void* addr) {
  if (!kGuardPages) return 0;
  if (!g_mutex.try_lock()) return -1;
  std::lock_guard<std::mutex> lock(g_mutex, std::adopt_lock);
  if (g_kernels == 0) return 0;
  auto c = static_cast<const char*>(addr);
  for (auto& [start, a] : g_allocations) {
    if (!a.region || c < a.pages || c >= a.pages + a.page_bytes) continue;
    // Open already: another worker opened it after this access faulted. Either way: again.
    a.kernel_touched = true;
    apply(a);
    return 1;
  }
  return 0;
}

std::string kernels_end() {
  if (!kGuardPages) return "";
  std::lock_guard<std::mutex> lock(g_mutex);
  std::string found;
  // The slack of the lab's own allocations: poison, unless a kernel wrote there.
  for (auto& [start, a] : g_allocations) {
    if (!a.labs_own || !a.open) continue;
    const char* ends[2][2] = {{a.pages, start}, {start + a.bytes, a.pages + a.page_bytes}};
    for (auto& [from, to] : ends) {
      for (const char* b = from; b < to; ++b) {
        if (static_cast<unsigned char>(*b) == kSlackPoison) continue;
        if (found.empty()) {
          char name[256], text[400];
          name_of(a, name, sizeof name);
          if (b >= start)
            std::snprintf(text, sizeof text, "%zu bytes past the end of %s", size_t(b - start - a.bytes), name);
          else
            std::snprintf(text, sizeof text, "%zu bytes before the start of %s", size_t(start - b), name);
          found = text;
        }
        std::memset(const_cast<char*>(from), kSlackPoison, size_t(to - from));
        break;
      }
    }
  }
  if (--g_kernels == 0) {
    for (auto& [start, a] : g_allocations) a.kernel_touched = false;
    apply_all();
  }
  return found;
}

void set_last_error(cudaError_t e) { g_last = e; }
cudaError_t device_failure() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_pending != cudaSuccess ? g_pending : g_sticky;
}
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
static cudalab_cpu::control::HostDataObserver g_host_data_observer = nullptr;
void cudalab_cpu::control::set_host_data_observer(HostDataObserver observer) { g_host_data_observer = observer; }

bool cudalab_cpu::control::is_device_memory(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto c = static_cast<const char*>(p);
  auto it = g_allocations.upper_bound(c);
  if (it == g_allocations.begin()) return false;
  --it;
  const Allocation& a = it->second;
  return !a.host_visible && c < it->first + a.bytes && bytes <= size_t(it->first + a.bytes - c);
}

void cudalab_cpu::control::name_device_allocation(const void* p, const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_allocations.find(static_cast<const char*>(p));
  if (it != g_allocations.end()) it->second.name = name;
}
void cudalab_cpu::control::mark_array_end(const void* p, size_t array_bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_allocations.find(static_cast<const char*>(p));
  if (it != g_allocations.end()) it->second.array_bytes = array_bytes;
}

std::vector<std::pair<uintptr_t, uintptr_t>> cudalab_cpu::detail::past_array_ends() {
  std::vector<std::pair<uintptr_t, uintptr_t>> out;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& [start, a] : g_allocations) {
    if (a.array_bytes >= a.bytes) continue;
    // To the end of its pages: what follows the guard words there is no more the array's.
    const char* end = a.pages ? a.pages + a.page_bytes : start + a.bytes;
    out.push_back({reinterpret_cast<uintptr_t>(start + a.array_bytes), reinterpret_cast<uintptr_t>(end)});
  }
  return out;
}

std::string cudalab_cpu::detail::describe_past_array_end(const void* addr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto c = static_cast<const char*>(addr);
  auto it = g_allocations.upper_bound(c);
  if (it == g_allocations.begin()) return "";
  --it;
  const Allocation& a = it->second;
  if (a.array_bytes >= a.bytes || c < it->first + a.array_bytes) return "";
  char name[256];
  name_of(a, name, sizeof name);
  return std::to_string(size_t(c - it->first - a.array_bytes)) + " bytes past the end of " + name;
}

unsigned long long cudalab_cpu::control::protection_changes() { return g_protection_changes.load(); }

cudaError_t cudaMalloc(void** p, size_t bytes) { return device_alloc(p, bytes); }
cudaError_t cudaMallocManaged(void** p, size_t bytes, unsigned) {
  if (g_host_data_observer) g_host_data_observer(bytes);
  return device_alloc(p, bytes, /*host_visible=*/true);
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
  Allocation a;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_allocations.find(static_cast<const char*>(p));
    if (it == g_allocations.end()) return record(cudaErrorInvalidValue);  // not from cudaMalloc, or freed twice
    a = std::move(it->second);
    g_allocations.erase(it);
  }
  if (a.region)
    arena::give_back(a.region, a.region_bytes);
  else
    std::free(p);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) {
  std::free(p);
  return cudaSuccess;
}

// Whether p lies inside memory cudaMalloc returned.
static bool in_device_allocation(const void* p) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return holding(p) != nullptr;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (cudaError_t e = take_pending(); e != cudaSuccess) return e;
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return record(cudaErrorInvalidValue);
  if (int(kind) < 0 || int(kind) > 4) return record(cudaErrorInvalidMemcpyDirection);
  if (!range_ok(dst, bytes) || !range_ok(src, bytes)) return record(cudaErrorInvalidValue);
  if (g_host_data_observer && in_device_allocation(src) && !in_device_allocation(dst)) g_host_data_observer(bytes);
  Touch open(dst, src);
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
    cudaError_t e =
        cudaMemcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
cudaError_t cudaMemset(void* p, int value, size_t bytes) {
  if (cudaError_t e = cudalab_cpu::detail::device_failure(); e != cudaSuccess) return record(e);
  if (bytes == 0) return cudaSuccess;
  if (!p) return record(cudaErrorInvalidValue);
  if (!range_ok(p, bytes)) return record(cudaErrorInvalidValue);
  Touch open(p);
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
  g_sticky = cudaSuccess;
  g_last = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaGetLastError() {
  std::lock_guard<std::mutex> lock(g_mutex);
  cudaError_t e = g_last;
  g_last = g_sticky;  // a lost context stays lost
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
    case cudaErrorNotPermitted: return "operation not permitted";
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
  std::snprintf(p->name, sizeof p->name, "cudalab CPU emulator (%d worker%s)", cudalab_cpu::control::worker_count(),
                cudalab_cpu::control::worker_count() == 1 ? "" : "s");
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
#if defined(CUDALAB_CPU_PROFILE)
  // PROFILE=1 estimates what an H100 would do: a grid sized from the SM count must be sized for it.
  p->multiProcessorCount = 132;
#else
  p->multiProcessorCount = cudalab_cpu::control::worker_count();
#endif
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
  std::fprintf(stderr,
               "cudalab: note: the CPU backend runs streams one after another, not concurrently; results "
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
