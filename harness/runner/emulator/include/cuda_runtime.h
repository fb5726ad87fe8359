// cudalab CPU backend: this header stands in for the CUDA runtime when g++ builds a lab.
//
// Kernels become ordinary C++ functions; every CUDA thread runs as a fiber on a worker
// thread (harness/runner/emulator/fibers.cpp). The built-in indices are per-worker variables that the
// scheduler sets before it resumes a fiber, and __shared__ becomes per-worker storage.
// Nothing here talks to a GPU and libcudart is not linked.
#pragma once
#define CUDALAB_CPU_EMULATOR 1
#ifndef CUDALAB_BACKEND_CPU
#define CUDALAB_BACKEND_CPU 1
#endif

#include <atomic>
#include <bit>
#include <cmath>
#include <math.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <string>
#include <vector>
#include <type_traits>
#include <utility>

#include "vector_types.h"

// ---- Qualifiers ------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
// __noinline__ is left alone: libstdc++ spells its own attribute that way.
#define __launch_bounds__(...)
#define __grid_constant__
#define __align__(n) alignas(n)
#define __builtin_align__(n) alignas(n)
#define __CUDA_ALIGN__(n) alignas(n)
// All threads of a block run on one worker, so per-worker storage is block storage.
// (The launch rewrite turns `extern __shared__ T s[];` into the dynamic area.)
#define __shared__ static thread_local
// __restrict__ is a g++ keyword already.

// ---- Error codes (the values match CUDA's, so printed numbers mean the same) ----------
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidTexture = 18,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidKernelImage = 200,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidAddressSpace = 717,
  cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorAssert = 710,
  cudaErrorECCUncorrectable = 214,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};
enum cudaLimit { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2 };

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};

struct cudaUUID_t {
  char bytes[16];
};

// The fields CUDA 13's cudaDeviceProp has that a lab may read (no texture/surface limits).
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int memoryPoolsSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int reserved[64];
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
};

struct CUstream_st;
struct CUevent_st;
typedef CUstream_st* cudaStream_t;
typedef CUevent_st* cudaEvent_t;
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaDeviceScheduleAuto 0x00
#define CUDART_VERSION 13000

// ---- Built-in variables -----------------------------------------------------------------
// __thread (not thread_local) so that every access is a plain TLS load, with no wrapper call.
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
constexpr int warpSize = 32;

// ---- The emulator's interface (harness/runner/emulator: launch.cpp, barriers.cpp, warps.cpp) -----------
namespace cudalab_cpu {

// Where a kernel launch was written (filled in by the launch rewrite).
struct LaunchSite {
  const char* file;
  int line;
  const char* kernel;
};

// A launch's body, type-erased: calling run(obj) executes the kernel for the current thread.
struct KernelBody {
  void (*run)(void* obj);
  void* obj;
};

cudaError_t launch_kernel(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_smem, cudaStream_t stream,
                          KernelBody body);

// Block-wide barrier; op 0 plain, 1 count, 2 and, 3 or. Returns the reduction for 1..3.
int block_barrier(int op, int predicate, const char* file, int line);

enum WarpOp : int {
  kShflIdx,
  kShflUp,
  kShflDown,
  kShflXor,
  kBallot,
  kSyncwarp,
  kReduceAdd,
  kReduceMin,
  kReduceMax,
  kReduceAnd,
  kReduceOr,
  kReduceXor,
  kMatchAny,
  kMatchAll
};
uint64_t warp_collective(int op, unsigned mask, uint64_t value, int arg, int width, const char* file, int line);
unsigned active_mask();

// The dynamic shared area of the running block (extern __shared__, after the rewrite).
extern __thread unsigned char* dynamic_smem_base;
template <class T>
inline T* dynamic_smem() {
  return reinterpret_cast<T*>(dynamic_smem_base);
}

// extern __shared__ at namespace scope: an object that reads the running block's area on use.
template <class T>
struct DynamicShared {
  operator T*() const { return dynamic_smem<T>(); }
  T& operator[](std::ptrdiff_t i) const { return dynamic_smem<T>()[i]; }
  T* operator+(std::ptrdiff_t i) const { return dynamic_smem<T>() + i; }
};

// The launch rewrite puts this before every `return;` of a kernel, so that a note on barrier
// divergence can tell an early return from a barrier some threads skipped.
void kernel_return(const char* file, int line);
void trap(const char* file, int line);

// Returned by launch(); calling it with the kernel's arguments runs the launch.
template <class F>
struct Launcher {
  LaunchSite site;
  F call;
  dim3 grid, block;
  size_t smem;
  cudaStream_t stream;

  template <class... A>
  void operator()(A&&... args) const {
    // Arguments are evaluated once, on the host, as CUDA does; every thread gets copies.
    std::tuple<std::decay_t<A>...> saved(std::forward<A>(args)...);
    auto body = [&]() { std::apply(call, saved); };
    using Body = decltype(body);
    launch_kernel(site, grid, block, smem, stream, KernelBody{[](void* p) { (*static_cast<Body*>(p))(); }, &body});
  }
};

template <class F>
inline Launcher<F> launch(const char* file, int line, const char* kernel, F call, dim3 grid, dim3 block,
                          size_t smem = 0, cudaStream_t stream = nullptr) {
  return Launcher<F>{LaunchSite{file, line, kernel}, call, grid, block, smem, stream};
}

template <class T>
inline uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "warp exchange of a value over 8 bytes");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

}  // namespace cudalab_cpu

// ---- Synchronization ----------------------------------------------------------------------
// The defaults capture the caller's file and line (the student's, thanks to #line).
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  cudalab_cpu::block_barrier(0, 0, file, line);
}
inline int __syncthreads_count(int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab_cpu::block_barrier(1, p, file, line);
}
inline int __syncthreads_and(int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab_cpu::block_barrier(2, p, file, line);
}
inline int __syncthreads_or(int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab_cpu::block_barrier(3, p, file, line);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  cudalab_cpu::warp_collective(cudalab_cpu::kSyncwarp, mask, 0, 0, 32, file, line);
}
inline unsigned __activemask() { return cudalab_cpu::active_mask(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __trap(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { cudalab_cpu::trap(file, line); }
inline void __nanosleep(unsigned) {}
inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }

// ---- volatile: warp lockstep ----------------------------------------------------------------
// Pre-Volta reductions end with a warp-synchronous step on `volatile` shared memory and no
// __syncwarp(): `s[t] += s[t + 16]; s[t] += s[t + 8]; ...`. GPUs run a warp's lanes together,
// so each line reads what every lane wrote on the line before; one lane after another would
// not. The launch rewrite turns `volatile T*` into lockstep_ptr<T> and `volatile T x` into
// lockstep<T>, whose every access is a turn: the lane waits until the other lanes of its warp
// have made their next volatile access too (or wait elsewhere), as in lockstep. Reading what
// another lane of the warp wrote since their last common __syncwarp()/__syncthreads() is
// reported once as a note (CUDA has not promised lockstep since Volta).
namespace cudalab_cpu {
void warp_turn(const volatile void* addr, bool write, const char* file, int line);

template <class T>
struct lockstep;
template <class T>
struct lockstep_ptr;

// One element reached through a volatile pointer: reads and writes take turns.
template <class T>
struct lockstep_ref {
  volatile T* p;
  const char* file;
  int line;
  T load() const {
    warp_turn(p, false, file, line);
    return *p;
  }
  void store(T v) const {
    warp_turn(p, true, file, line);
    *p = v;
  }
  operator T() const { return load(); }
  const lockstep_ref& operator=(T v) const {
    store(v);
    return *this;
  }
  const lockstep_ref& operator=(const lockstep_ref& o) const {
    store(o.load());
    return *this;
  }
#define CUDALAB_CPU_COMPOUND(op)                         \
  template <class V>                                     \
  const lockstep_ref& operator op##=(const V& v) const { \
    T x = T(v);                                          \
    store(T(load() op x));                               \
    return *this;                                        \
  }
  // A list of macro uses, laid out by hand (the formatter cannot lay out a macro list).
  // clang-format off
  CUDALAB_CPU_COMPOUND(+) CUDALAB_CPU_COMPOUND(-) CUDALAB_CPU_COMPOUND(*) CUDALAB_CPU_COMPOUND(/)
  CUDALAB_CPU_COMPOUND(%) CUDALAB_CPU_COMPOUND(&) CUDALAB_CPU_COMPOUND(|) CUDALAB_CPU_COMPOUND(^)
  CUDALAB_CPU_COMPOUND(<<) CUDALAB_CPU_COMPOUND(>>)
#undef CUDALAB_CPU_COMPOUND
      // clang-format on
      const lockstep_ref&
      operator++() const {
    store(T(load() + 1));
    return *this;
  }
  const lockstep_ref& operator--() const {
    store(T(load() - 1));
    return *this;
  }
  T operator++(int) const {
    T v = load();
    store(T(v + 1));
    return v;
  }
  T operator--(int) const {
    T v = load();
    store(T(v - 1));
    return v;
  }
  lockstep_ptr<T> operator&() const { return lockstep_ptr<T>(p, file, line); }
};

// A `volatile T*`. Made from a plain pointer where the code turns shared memory volatile (the
// call of warpReduce(sdata, tid), say): that line is what a note names.
template <class T>
struct lockstep_ptr {
  volatile T* p = nullptr;
  const char* file = nullptr;
  int line = 0;
  lockstep_ptr() = default;
  lockstep_ptr(std::nullptr_t) {}
  lockstep_ptr(volatile T* q, const char* f = __builtin_FILE(), int l = __builtin_LINE()) : p(q), file(f), line(l) {}
  lockstep_ptr(lockstep<T>* q, const char* f = __builtin_FILE(), int l = __builtin_LINE())
      : p(reinterpret_cast<volatile T*>(q)), file(f), line(l) {}
  template <class U>
  requires(!std::is_same_v<U, T> && std::is_convertible_v<volatile U*, volatile T*>)
      lockstep_ptr(const lockstep_ptr<U>& q)
      : p(q.p), file(q.file), line(q.line) {}
  // (volatile float*)bytes and the like: casts only.
  template <class U>
  explicit lockstep_ptr(U* q, const char* f = __builtin_FILE(), int l = __builtin_LINE())
      : p((volatile T*)(q)), file(f), line(l) {}
  template <class U>
  requires(!std::is_convertible_v<volatile U*, volatile T*>) explicit lockstep_ptr(const lockstep_ptr<U>& q)
      : p((volatile T*)(q.p)), file(q.file), line(q.line) {}

  operator volatile T*() const { return p; }
  template <class I>
  requires std::is_integral_v<I> lockstep_ref<T>
  operator[](I i) const { return {p + i, file, line}; }
  lockstep_ref<T> operator*() const { return {p, file, line}; }
  volatile T* operator->() const { return p; }
  template <class I>
  requires std::is_integral_v<I> lockstep_ptr operator+(I i) const { return lockstep_ptr(p + i, file, line); }
  template <class I>
  requires std::is_integral_v<I>
  friend lockstep_ptr operator+(I i, const lockstep_ptr& q) { return q + i; }
  template <class I>
  requires std::is_integral_v<I> lockstep_ptr operator-(I i) const { return lockstep_ptr(p - i, file, line); }
  std::ptrdiff_t operator-(const lockstep_ptr& o) const { return p - o.p; }
  template <class I>
  lockstep_ptr& operator+=(I i) {
    p += i;
    return *this;
  }
  template <class I>
  lockstep_ptr& operator-=(I i) {
    p -= i;
    return *this;
  }
  lockstep_ptr& operator++() {
    ++p;
    return *this;
  }
  lockstep_ptr& operator--() {
    --p;
    return *this;
  }
  lockstep_ptr operator++(int) {
    lockstep_ptr q = *this;
    ++p;
    return q;
  }
  lockstep_ptr operator--(int) {
    lockstep_ptr q = *this;
    --p;
    return q;
  }
};

// An object declared volatile (`__shared__ volatile float s[64];`, `volatile int flag;`).
template <class T>
struct lockstep {
  volatile T v;
  // constexpr, so that a __shared__ (static thread_local) array of them is constant-initialized:
  // no guard variable, which every thread would read and the first would write.
  constexpr lockstep() : v() {}
  constexpr lockstep(T x) : v(x) {}
  lockstep_ref<T> ref() const { return {const_cast<volatile T*>(&v), nullptr, 0}; }
  operator T() const { return ref().load(); }
  lockstep& operator=(T x) {
    ref().store(x);
    return *this;
  }
  lockstep& operator=(const lockstep& o) {
    ref().store(o.ref().load());
    return *this;
  }
#define CUDALAB_CPU_COMPOUND(op)         \
  template <class V>                     \
  lockstep& operator op##=(const V& x) { \
    ref() op## = x;                      \
    return *this;                        \
  }
  // A list of macro uses, laid out by hand (the formatter cannot lay out a macro list).
  // clang-format off
  CUDALAB_CPU_COMPOUND(+) CUDALAB_CPU_COMPOUND(-) CUDALAB_CPU_COMPOUND(*) CUDALAB_CPU_COMPOUND(/)
  CUDALAB_CPU_COMPOUND(%) CUDALAB_CPU_COMPOUND(&) CUDALAB_CPU_COMPOUND(|) CUDALAB_CPU_COMPOUND(^)
  CUDALAB_CPU_COMPOUND(<<) CUDALAB_CPU_COMPOUND(>>)
#undef CUDALAB_CPU_COMPOUND
      // clang-format on
      lockstep&
      operator++() {
    ++ref();
    return *this;
  }
  lockstep& operator--() {
    --ref();
    return *this;
  }
  T operator++(int) { return ref()++; }
  T operator--(int) { return ref()--; }
  lockstep_ptr<T> operator&() { return lockstep_ptr<T>(&v); }
};

template <class T>
struct lockstep_value {
  using type = T;
};
template <class T>
struct lockstep_value<lockstep_ref<T>> {
  using type = T;
};
template <class T>
struct lockstep_value<lockstep<T>> {
  using type = T;
};
template <class T>
using lockstep_value_t = typename lockstep_value<std::remove_cvref_t<T>>::type;
template <class T>
constexpr bool is_lockstep_v = !std::is_same_v<lockstep_value_t<T>, std::remove_cvref_t<T>>;
}  // namespace cudalab_cpu

// ---- Warp operations ------------------------------------------------------------------------
template <class T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32, const char* file = __builtin_FILE(),
                     int line = __builtin_LINE()) {
  return cudalab_cpu::from_bits<T>(
      cudalab_cpu::warp_collective(cudalab_cpu::kShflIdx, mask, cudalab_cpu::to_bits(v), src, width, file, line));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
  return cudalab_cpu::from_bits<T>(
      cudalab_cpu::warp_collective(cudalab_cpu::kShflUp, mask, cudalab_cpu::to_bits(v), int(delta), width, file, line));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32, const char* file = __builtin_FILE(),
                          int line = __builtin_LINE()) {
  return cudalab_cpu::from_bits<T>(cudalab_cpu::warp_collective(cudalab_cpu::kShflDown, mask, cudalab_cpu::to_bits(v),
                                                                int(delta), width, file, line));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32, const char* file = __builtin_FILE(),
                         int line = __builtin_LINE()) {
  return cudalab_cpu::from_bits<T>(
      cudalab_cpu::warp_collective(cudalab_cpu::kShflXor, mask, cudalab_cpu::to_bits(v), lane_mask, width, file, line));
}
inline unsigned __ballot_sync(unsigned mask, int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return unsigned(cudalab_cpu::warp_collective(cudalab_cpu::kBallot, mask, p != 0, 0, 32, file, line));
}
inline int __any_sync(unsigned mask, int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab_cpu::warp_collective(cudalab_cpu::kBallot, mask, p != 0, 0, 32, file, line) != 0;
}
inline int __all_sync(unsigned mask, int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  // All lanes named in mask voted yes when the ballot of "no" votes is empty.
  return cudalab_cpu::warp_collective(cudalab_cpu::kBallot, mask, p == 0, 0, 32, file, line) == 0;
}
inline int __uni_sync(unsigned mask, int p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return cudalab_cpu::warp_collective(cudalab_cpu::kMatchAll, mask, p != 0, 0, 32, file, line) != 0;
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return unsigned(
      cudalab_cpu::warp_collective(cudalab_cpu::kMatchAny, mask, cudalab_cpu::to_bits(v), 0, 32, file, line));
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T v, int* pred, const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  unsigned r =
      unsigned(cudalab_cpu::warp_collective(cudalab_cpu::kMatchAll, mask, cudalab_cpu::to_bits(v), 0, 32, file, line));
  *pred = r != 0;
  return r;
}
#define CUDALAB_CPU_REDUCE(name, op, T)                                                                                \
  inline T name(unsigned mask, T v, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {                \
    return T(cudalab_cpu::warp_collective(op, mask, uint64_t(uint32_t(v)) | (std::is_signed_v<T> ? 1ull << 40 : 0), 0, \
                                          32, file, line));                                                            \
  }
CUDALAB_CPU_REDUCE(__reduce_add_sync, cudalab_cpu::kReduceAdd, unsigned)
CUDALAB_CPU_REDUCE(__reduce_add_sync, cudalab_cpu::kReduceAdd, int)
CUDALAB_CPU_REDUCE(__reduce_min_sync, cudalab_cpu::kReduceMin, unsigned)
CUDALAB_CPU_REDUCE(__reduce_min_sync, cudalab_cpu::kReduceMin, int)
CUDALAB_CPU_REDUCE(__reduce_max_sync, cudalab_cpu::kReduceMax, unsigned)
CUDALAB_CPU_REDUCE(__reduce_max_sync, cudalab_cpu::kReduceMax, int)
CUDALAB_CPU_REDUCE(__reduce_and_sync, cudalab_cpu::kReduceAnd, unsigned)
CUDALAB_CPU_REDUCE(__reduce_or_sync, cudalab_cpu::kReduceOr, unsigned)
CUDALAB_CPU_REDUCE(__reduce_xor_sync, cudalab_cpu::kReduceXor, unsigned)
#undef CUDALAB_CPU_REDUCE

// Pre-Volta warp intrinsics without a mask no longer exist in CUDA; say so clearly.
template <class... A>
void __shfl(A...) {
  static_assert(sizeof...(A) < 0, "__shfl without _sync was removed from CUDA; use __shfl_sync(0xffffffff, ...)");
}
template <class... A>
void __shfl_down(A...) {
  static_assert(sizeof...(A) < 0, "__shfl_down was removed from CUDA; use __shfl_down_sync(0xffffffff, ...)");
}
template <class... A>
void __shfl_xor(A...) {
  static_assert(sizeof...(A) < 0, "__shfl_xor was removed from CUDA; use __shfl_xor_sync(0xffffffff, ...)");
}
template <class... A>
void __ballot(A...) {
  static_assert(sizeof...(A) < 0, "__ballot was removed from CUDA; use __ballot_sync(0xffffffff, ...)");
}

// ---- Atomics (std::atomic_ref: correct under contention from several workers) --------------
namespace cudalab_cpu {
template <class T>
inline std::atomic_ref<T> aref(T* p) {
  return std::atomic_ref<T>(*p);
}
template <class T, class F>
inline T atomic_update(T* p, F f) {
  auto a = aref(p);
  T old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, f(old), std::memory_order_relaxed)) {
  }
  return old;
}
}  // namespace cudalab_cpu

#define CUDALAB_CPU_ATOMIC_ARITH(T)                                                                      \
  inline T atomicAdd(T* p, T v) { return cudalab_cpu::aref(p).fetch_add(v, std::memory_order_relaxed); } \
  inline T atomicAdd_block(T* p, T v) { return atomicAdd(p, v); }                                        \
  inline T atomicAdd_system(T* p, T v) { return atomicAdd(p, v); }                                       \
  inline T atomicExch(T* p, T v) { return cudalab_cpu::aref(p).exchange(v, std::memory_order_relaxed); } \
  inline T atomicMin(T* p, T v) {                                                                        \
    return cudalab_cpu::atomic_update(p, [v](T o) { return v < o ? v : o; });                            \
  }                                                                                                      \
  inline T atomicMax(T* p, T v) {                                                                        \
    return cudalab_cpu::atomic_update(p, [v](T o) { return v > o ? v : o; });                            \
  }
CUDALAB_CPU_ATOMIC_ARITH(int)
CUDALAB_CPU_ATOMIC_ARITH(unsigned int)
CUDALAB_CPU_ATOMIC_ARITH(unsigned long long)
CUDALAB_CPU_ATOMIC_ARITH(long long)
CUDALAB_CPU_ATOMIC_ARITH(float)
CUDALAB_CPU_ATOMIC_ARITH(double)
#undef CUDALAB_CPU_ATOMIC_ARITH

#define CUDALAB_CPU_ATOMIC_INT(T)                                                                        \
  inline T atomicSub(T* p, T v) { return cudalab_cpu::aref(p).fetch_sub(v, std::memory_order_relaxed); } \
  inline T atomicAnd(T* p, T v) { return cudalab_cpu::aref(p).fetch_and(v, std::memory_order_relaxed); } \
  inline T atomicOr(T* p, T v) { return cudalab_cpu::aref(p).fetch_or(v, std::memory_order_relaxed); }   \
  inline T atomicXor(T* p, T v) { return cudalab_cpu::aref(p).fetch_xor(v, std::memory_order_relaxed); } \
  inline T atomicCAS(T* p, T compare, T v) {                                                             \
    cudalab_cpu::aref(p).compare_exchange_strong(compare, v, std::memory_order_relaxed);                 \
    return compare; /* holds the old value whether or not the swap happened */                           \
  }
CUDALAB_CPU_ATOMIC_INT(int)
CUDALAB_CPU_ATOMIC_INT(unsigned int)
CUDALAB_CPU_ATOMIC_INT(unsigned long long)
CUDALAB_CPU_ATOMIC_INT(long long)
#undef CUDALAB_CPU_ATOMIC_INT
inline unsigned short atomicCAS(unsigned short* p, unsigned short compare, unsigned short v) {
  cudalab_cpu::aref(p).compare_exchange_strong(compare, v, std::memory_order_relaxed);
  return compare;
}
// CUDA's wrapping counters: inc wraps to 0 past limit, dec wraps to limit below 0 or above limit.
inline unsigned atomicInc(unsigned* p, unsigned limit) {
  return cudalab_cpu::atomic_update(p, [limit](unsigned o) { return o >= limit ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
  return cudalab_cpu::atomic_update(p, [limit](unsigned o) { return (o == 0 || o > limit) ? limit : o - 1; });
}

// ---- Bit casts and integer intrinsics ---------------------------------------------------------
inline int __float_as_int(float f) { return std::bit_cast<int>(f); }
inline unsigned __float_as_uint(float f) { return std::bit_cast<unsigned>(f); }
inline float __int_as_float(int i) { return std::bit_cast<float>(i); }
inline float __uint_as_float(unsigned i) { return std::bit_cast<float>(i); }
inline long long __double_as_longlong(double d) { return std::bit_cast<long long>(d); }
inline double __longlong_as_double(long long i) { return std::bit_cast<double>(i); }
inline int __popc(unsigned x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(unsigned(x)); }
inline int __clzll(long long x) { return std::countl_zero((unsigned long long)x); }
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(unsigned(x)) + 1; }
inline int __ffsll(long long x) { return x == 0 ? 0 : std::countr_zero((unsigned long long)x) + 1; }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mul24(int a, int b) { return int((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return int(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __sad(int a, int b, unsigned c) { return int(c + unsigned(a > b ? a - b : b - a)); }

// ---- Loads and math ------------------------------------------------------------------------------
template <class T>
inline T __ldg(const T* p) {
  return *p;
}
template <class T>
inline T __ldcg(const T* p) {
  return *p;
}
template <class T>
inline T __ldca(const T* p) {
  return *p;
}
template <class T>
inline T __ldcs(const T* p) {
  return *p;
}
template <class T>
inline T __ldlu(const T* p) {
  return *p;
}
template <class T>
inline void __stcg(T* p, T v) {
  *p = v;
}
template <class T>
inline void __stcs(T* p, T v) {
  *p = v;
}
template <class T>
inline void __stwb(T* p, T v) {
  *p = v;
}

// CUDA's min/max accept mixed argument types and use the usual arithmetic conversions.
template <class A, class B>
requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
inline std::common_type_t<A, B> min(A a, B b) {
  using C = std::common_type_t<A, B>;
  return C(b) < C(a) ? C(b) : C(a);
}
template <class A, class B>
requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
inline std::common_type_t<A, B> max(A a, B b) {
  using C = std::common_type_t<A, B>;
  return C(a) < C(b) ? C(b) : C(a);
}
// min(s[t], s[t + 16]) on volatile shared memory: the values, read in turn.
template <class A, class B>
requires(cudalab_cpu::is_lockstep_v<A> || cudalab_cpu::is_lockstep_v<B>) inline auto min(const A& a, const B& b) {
  return min(cudalab_cpu::lockstep_value_t<A>(a), cudalab_cpu::lockstep_value_t<B>(b));
}
template <class A, class B>
requires(cudalab_cpu::is_lockstep_v<A> || cudalab_cpu::is_lockstep_v<B>) inline auto max(const A& a, const B& b) {
  return max(cudalab_cpu::lockstep_value_t<A>(a), cudalab_cpu::lockstep_value_t<B>(b));
}
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline void __sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
inline void sincosf(float x, float* s, float* c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline int __float2int_rn(float x) { return int(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return int(x); }
inline int __float2int_rd(float x) { return int(std::floor(x)); }
inline int __float2int_ru(float x) { return int(std::ceil(x)); }
inline unsigned __float2uint_rn(float x) { return unsigned(std::nearbyint(x)); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned x) { return float(x); }
inline float __ll2float_rn(long long x) { return float(x); }
inline float __double2float_rn(double x) { return float(x); }
inline float exp10f(float x) { return std::pow(10.0f, x); }
inline float saturate(float x) { return __saturatef(x); }
// fmaf, sqrtf, fminf, fmaxf, expf, ... come from <math.h> as in host code.

// ---- Features the CPU backend cannot run: a clear message instead of a puzzle ---------------
#define CUDALAB_CPU_UNSUPPORTED_TEMPLATE(name, what)                                                    \
  template <class... A>                                                                                 \
  inline void name(A...) {                                                                              \
    static_assert(sizeof...(A) < 0,                                                                     \
                  "the cudalab CPU backend cannot run " what "; run this lab on a GPU (BACKEND=cuda)"); \
  }
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(tex1Dfetch, "textures (tex1Dfetch)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(tex1D, "textures (tex1D)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(tex2D, "textures (tex2D)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(tex3D, "textures (tex3D)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(surf2Dread, "surfaces (surf2Dread)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(surf2Dwrite, "surfaces (surf2Dwrite)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(cudaCreateTextureObject, "textures (cudaCreateTextureObject)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(cudaCreateSurfaceObject, "surfaces (cudaCreateSurfaceObject)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(cudaLaunchCooperativeKernel,
                                 "grid-wide cooperative launches (cudaLaunchCooperativeKernel)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(cudaGraphCreate, "CUDA graphs (cudaGraphCreate)")
CUDALAB_CPU_UNSUPPORTED_TEMPLATE(cudaStreamBeginCapture, "CUDA graphs (cudaStreamBeginCapture)")
#undef CUDALAB_CPU_UNSUPPORTED_TEMPLATE
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

// ---- Host runtime API (harness/runner/emulator/runtime.cpp) -------------------------------------------
cudaError_t cudaMalloc(void** p, size_t bytes);
template <class T>
inline cudaError_t cudaMalloc(T** p, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
cudaError_t cudaMallocManaged(void** p, size_t bytes, unsigned flags = cudaMemAttachGlobal);
template <class T>
inline cudaError_t cudaMallocManaged(T** p, size_t bytes, unsigned flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(p), bytes, flags);
}
cudaError_t cudaMallocHost(void** p, size_t bytes);
template <class T>
inline cudaError_t cudaMallocHost(T** p, size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(p), bytes);
}
cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned flags);
template <class T>
inline cudaError_t cudaHostAlloc(T** p, size_t bytes, unsigned flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(p), bytes, flags);
}
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height);
template <class T>
inline cudaError_t cudaMallocPitch(T** p, size_t* pitch, size_t width, size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(p), pitch, width, height);
}
cudaError_t cudaFree(void* p);
cudaError_t cudaFreeHost(void* p);
// C linkage, as the CUDA runtime's own: the kernel runner checks a lab's copies and fills by
// wrapping these names at link time (harness/runner/copy_check.h), on both backends alike.
extern "C" {
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s = nullptr);
cudaError_t cudaMemset(void* p, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t s = nullptr);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaMemPrefetchAsync(const void* p, size_t bytes, int device, cudaStream_t s = nullptr);

cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaThreadSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t e);
const char* cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaSetDeviceFlags(unsigned flags);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDriverGetVersion(int* v);
cudaError_t cudaRuntimeGetVersion(int* v);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c);

cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t e);

cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);

// Kernel attributes. The dynamic shared memory limit is held as a GPU holds it: a launch asking
// for more than 48 KiB is refused unless cudaFuncSetAttribute raised that kernel's limit first
// (func_attributes.cpp). A kernel is known here by its text, as the launch names it: the macro
// hands the call's own words over with the function. Carve-outs are accepted and ignored.
cudaError_t cudaFuncSetAttribute(const char* call_text, cudaFuncAttribute attr, int value);
template <class F>
inline cudaError_t cudaFuncSetAttribute(const char* call_text, F*, cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(call_text, attr, value);
}
#define cudaFuncSetAttribute(...) cudaFuncSetAttribute(#__VA_ARGS__, __VA_ARGS__)
template <class F>
inline cudaError_t cudaFuncSetCacheConfig(F*, cudaFuncCache) {
  return cudaSuccess;
}
template <class F>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F*) {
  *a = cudaFuncAttributes{};
  a->maxThreadsPerBlock = 1024;
  a->maxDynamicSharedSizeBytes = 48 * 1024;
  return cudaSuccess;
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F*, int block_size, size_t) {
  *n = block_size > 0 ? (2048 / block_size > 0 ? 2048 / block_size : 1) : 0;
  return cudaSuccess;
}

// __device__ / __constant__ variables are ordinary globals here.
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (offset + bytes > sizeof(T)) return cudaErrorInvalidValue;
  std::memcpy(reinterpret_cast<char*>(&symbol) + offset, src, bytes);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t bytes, size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (offset + bytes > sizeof(T)) return cudaErrorInvalidValue;
  std::memcpy(dst, reinterpret_cast<const char*>(&symbol) + offset, bytes);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(T& symbol, const void* src, size_t bytes, size_t offset = 0,
                                           cudaMemcpyKind k = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(symbol, src, bytes, offset, k);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void** p, T& symbol) {
  *p = &symbol;
  return cudaSuccess;
}

// cudaLaunchKernel with an argument array: the kernel's parameter types unpack it.
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*f)(P...), dim3 grid, dim3 block, void** args, size_t smem = 0,
                                    cudaStream_t stream = nullptr) {
  auto call = [f](auto&&... a) { f(a...); };
  return [&]<size_t... I>(std::index_sequence<I...>) {
    cudalab_cpu::launch(__FILE__, __LINE__, "cudaLaunchKernel", call, grid, block, smem,
                        stream)(*static_cast<std::remove_cvref_t<P>*>(args[I])...);
    return cudaPeekAtLastError();
  }
  (std::index_sequence_for<P...>{});
}

// The emulator's controls (the schedule, workers, observers, notes) are not declared here:
// they are the kernel runner's (harness/runner/emulator/control.h), set from the checker's request before
// the lab's code runs, and the link contract refuses a lab file that names them.
