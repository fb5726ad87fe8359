#include "arena.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include <mutex>

// The emulator's one system-call instruction for device memory's protection and mappings:
// cudalab_cpu_arena_syscall(nr, a, b, c, d, e, f), the raw call, returning -errno on failure.
// The filter admits mprotect & co. on guarded memory only when the instruction pointer is
// cudalab_cpu_arena_site (the instruction after the `syscall`). Not inlined, so there is
// exactly one such instruction.
extern "C" long cudalab_cpu_arena_syscall(long nr, long a, long b, long c, long d, long e, long f);
extern "C" char cudalab_cpu_arena_site[];
#if defined(__x86_64__)
asm(R"(
  .text
  .p2align 4
  .globl cudalab_cpu_arena_syscall
  .hidden cudalab_cpu_arena_syscall
  .type cudalab_cpu_arena_syscall, @function
cudalab_cpu_arena_syscall:
  mov %rdi, %rax
  mov %rsi, %rdi
  mov %rdx, %rsi
  mov %rcx, %rdx
  mov %r8, %r10
  mov %r9, %r8
  mov 8(%rsp), %r9
  syscall
  .globl cudalab_cpu_arena_site
  .hidden cudalab_cpu_arena_site
cudalab_cpu_arena_site:
  ret
  .size cudalab_cpu_arena_syscall, .-cudalab_cpu_arena_syscall
)");
#else
#include <unistd.h>
extern "C" long cudalab_cpu_arena_syscall(long nr, long a, long b, long c, long d, long e, long f) {
  long r = syscall(nr, a, b, c, d, e, f);
  return r == -1 ? -errno : r;
}
char cudalab_cpu_arena_site[1];
#endif

namespace cudalab_cpu::arena {
namespace {

constexpr uintptr_t k4GiB = uintptr_t(1) << 32;

std::mutex g_mutex;
char* g_base = nullptr;  // 4 GiB aligned
char* g_next = nullptr;
size_t g_size = 0;  // kArenaBytes, or less where the address space is limited (RLIMIT_AS)
std::vector<std::pair<uintptr_t, uintptr_t>> g_pages;  // guard_page()'s

long raw(long nr, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  return cudalab_cpu_arena_syscall(nr, a, b, c, d, e, f);
}

// Reserves the arena once: kArenaBytes (or an eighth of it, and so on, down to 64 GiB, where
// the address space is limited) plus 8 GiB, PROT_NONE, no memory. The arena starts 4 GiB
// aligned at least 4 GiB into the reservation: the 4 GiB below it, which the filter guards too,
// are ours, so no other mapping (which the system places below the last) ever lands there.
bool reserved() {
  if (g_base) return true;
  for (size_t size = kArenaBytes; size >= (size_t(64) << 30); size /= 8) {
    const long r =
        raw(SYS_mmap, 0, long(size + 2 * k4GiB), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r < 0 && r > -4096) continue;
    g_base = reinterpret_cast<char*>((uintptr_t(r) + 2 * k4GiB - 1) & ~(k4GiB - 1));
    g_next = g_base;
    g_size = size;
    return true;
  }
  return false;
}

}  // namespace

char* take(size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!reserved() || bytes > size_t(g_base + g_size - g_next)) return nullptr;
  char* p = g_next;
  g_next += bytes;
  return p;
}

void give_back(char* p, size_t bytes) {
  raw(SYS_mmap, long(p), long(bytes), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

long protect(void* p, size_t bytes, int prot) { return raw(SYS_mprotect, long(p), long(bytes), prot); }

void guard_page(const void* page, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_pages.emplace_back(reinterpret_cast<uintptr_t>(page), reinterpret_cast<uintptr_t>(page) + bytes);
}

Guard guard() {
  std::lock_guard<std::mutex> lock(g_mutex);
  Guard g;
  g.site = reinterpret_cast<uintptr_t>(cudalab_cpu_arena_site);
  if (reserved())
    g.ranges.emplace_back(reinterpret_cast<uintptr_t>(g_base), reinterpret_cast<uintptr_t>(g_base) + g_size);
  g.ranges.insert(g.ranges.end(), g_pages.begin(), g_pages.end());
  return g;
}

}  // namespace cudalab_cpu::arena
