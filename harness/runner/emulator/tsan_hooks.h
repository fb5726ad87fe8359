// cudalab CPU backend: the hooks -fsanitize=thread makes lab code call (__tsan_read4,
// __tsan_atomic32_fetch_add, ...), written once for the two builds that define them: the race
// build's detector (race.cpp) and the profile build's counters (profile.cpp). A program has one of
// the two, so this file is included once, at the end of race.cpp or of profile.cpp, after that
// file has said in namespace cudalab_cpu::tsan_build what its hooks do:
//   access(p, size, write, atomic, pc)  every access, plain or atomic; pc: the hook's caller,
//                                       which names the line
//   kAtomicLoadIsAccess                 whether an atomic load is an access of its own
//   AtomicOrder(p)                      lives while an atomic operation runs (what orders blocks)
//   fenced()                            a __threadfence() has just been made
// A hook added here is a hook of both builds: neither can lack one the other has. Internal to the
// emulator; only lab code (and the backend's headers it includes) is compiled to call these.
#pragma once
#include <cstddef>
#include <cstdint>

#define CUDALAB_PC reinterpret_cast<uintptr_t>(__builtin_return_address(0))
namespace tsan_build = cudalab_cpu::tsan_build;

extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_read_range(void* p, size_t n) { tsan_build::access(p, n, false, false, CUDALAB_PC); }
void __tsan_write_range(void* p, size_t n) { tsan_build::access(p, n, true, false, CUDALAB_PC); }
void __tsan_atomic_thread_fence(int) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);  // the fence itself: the compiler left it to us
  tsan_build::fenced();
}
void __tsan_atomic_signal_fence(int) {}

#define CUDALAB_PLAIN(N)                                                                         \
  void __tsan_read##N(void* p) { tsan_build::access(p, N, false, false, CUDALAB_PC); }           \
  void __tsan_write##N(void* p) { tsan_build::access(p, N, true, false, CUDALAB_PC); }           \
  void __tsan_unaligned_read##N(void* p) { tsan_build::access(p, N, false, false, CUDALAB_PC); } \
  void __tsan_unaligned_write##N(void* p) { tsan_build::access(p, N, true, false, CUDALAB_PC); } \
  void __tsan_volatile_read##N(void* p) { tsan_build::access(p, N, false, false, CUDALAB_PC); }  \
  void __tsan_volatile_write##N(void* p) { tsan_build::access(p, N, true, false, CUDALAB_PC); }
CUDALAB_PLAIN(1)
CUDALAB_PLAIN(2)
CUDALAB_PLAIN(4)
CUDALAB_PLAIN(8)
CUDALAB_PLAIN(16)

// The atomics themselves run here (the compiler replaced them with these calls), always
// sequentially consistent: at least as strong as what was asked for.
#define CUDALAB_RMW(N, T, name, builtin)                  \
  T __tsan_atomic##N##_##name(volatile T* p, T v, int) {  \
    tsan_build::access(p, N / 8, true, true, CUDALAB_PC); \
    tsan_build::AtomicOrder order(p);                     \
    return builtin(p, v, __ATOMIC_SEQ_CST);               \
  }
#define CUDALAB_ATOMICS(N, T)                                                                      \
  T __tsan_atomic##N##_load(const volatile T* p, int) {                                            \
    if (tsan_build::kAtomicLoadIsAccess) tsan_build::access(p, N / 8, false, true, CUDALAB_PC);    \
    tsan_build::AtomicOrder order(p);                                                              \
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                   \
  }                                                                                                \
  void __tsan_atomic##N##_store(volatile T* p, T v, int) {                                         \
    tsan_build::access(p, N / 8, true, true, CUDALAB_PC);                                          \
    tsan_build::AtomicOrder order(p);                                                              \
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                \
  CUDALAB_RMW(N, T, exchange, __atomic_exchange_n)                                                 \
  CUDALAB_RMW(N, T, fetch_add, __atomic_fetch_add)                                                 \
  CUDALAB_RMW(N, T, fetch_sub, __atomic_fetch_sub)                                                 \
  CUDALAB_RMW(N, T, fetch_and, __atomic_fetch_and)                                                 \
  CUDALAB_RMW(N, T, fetch_or, __atomic_fetch_or)                                                   \
  CUDALAB_RMW(N, T, fetch_xor, __atomic_fetch_xor)                                                 \
  CUDALAB_RMW(N, T, fetch_nand, __atomic_fetch_nand)                                               \
  int __tsan_atomic##N##_compare_exchange_strong(volatile T* p, T* expected, T v, int, int) {      \
    tsan_build::access(p, N / 8, true, true, CUDALAB_PC);                                          \
    tsan_build::AtomicOrder order(p);                                                              \
    return __atomic_compare_exchange_n(p, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  int __tsan_atomic##N##_compare_exchange_weak(volatile T* p, T* expected, T v, int, int) {        \
    tsan_build::access(p, N / 8, true, true, CUDALAB_PC);                                          \
    tsan_build::AtomicOrder order(p);                                                              \
    return __atomic_compare_exchange_n(p, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  T __tsan_atomic##N##_compare_exchange_val(volatile T* p, T expected, T v, int, int) {            \
    tsan_build::access(p, N / 8, true, true, CUDALAB_PC);                                          \
    tsan_build::AtomicOrder order(p);                                                              \
    __atomic_compare_exchange_n(p, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);       \
    return expected;                                                                               \
  }
CUDALAB_ATOMICS(8, uint8_t)
CUDALAB_ATOMICS(16, uint16_t)
CUDALAB_ATOMICS(32, uint32_t)
CUDALAB_ATOMICS(64, uint64_t)
}
