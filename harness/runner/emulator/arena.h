// cudalab CPU backend: the address space of device memory, and the one place its protection
// changes.
//
// Device memory is host memory here, closed to the lab's host code by its protection (PROT_NONE
// while host code runs, runtime.cpp). Lab code shares the process, so whatever changes that
// protection could be reached by it too: a function found by hand in the C library, a raw system
// call. Two things close that route together:
//   * every device allocation lies in one reserved range of addresses (reserved at the first
//     allocation: kArenaBytes of address space, no memory), and every mprotect, mmap, munmap,
//     madvise or mremap of the emulator's on it goes through one system-call instruction here
//     (syscall(), below);
//   * the kernel runner's seccomp filter (harness/runner/syscall_filter.h) refuses those calls
//     on the range (and on the page of the schedule's state, and the 4 GiB below each, so a
//     large length cannot reach in from beneath) from any other instruction.
// Not for lab code: nothing under include/ declares it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudalab_cpu::arena {

constexpr size_t kArenaBytes = size_t(16) << 40;  // 16 TiB of addresses (less where limited); never reused

// `bytes` (a multiple of the page) of fresh PROT_NONE addresses inside the arena; nullptr when
// it is used up or could not be reserved.
char* take(size_t bytes);
// Gives the memory of [p, p + bytes) back to the system; the addresses stay reserved, PROT_NONE.
void give_back(char* p, size_t bytes);
// mprotect through the arena's system-call instruction (0, or -errno). Also for the emulator's
// other guarded pages (the schedule's state).
long protect(void* p, size_t bytes, int prot);

// What the system-call filter holds: address ranges [lo, hi) whose protection only the
// instruction at `site` may change.
struct Guard {
  uintptr_t site = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
};
// The arena (reserved now if it is not yet) and the extra pages named with guard_page().
Guard guard();
void guard_page(const void* page, size_t bytes);

}  // namespace cudalab_cpu::arena
