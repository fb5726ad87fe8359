// Attack: lift the CPU backend's protection of device memory (PROT_NONE while host code runs)
// with mprotect found by hand in the C library, read the input on the host, sum it there, and
// write the sum with cudaMemset beside one empty kernel.
// expect-exit: 1
// expect-passed: none
// expect-cause: forbidden_call
// expect-message: change memory's protection
// backends: cpu
#include <sys/mman.h>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <link.h>
#include "cudalab/lab3.h"

__global__ void nothing() {}
__global__ void sum_kernel(const float* in, float* out, size_t n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0;
    for (size_t i = 0; i < n; ++i) s += in[i];
    *out = s;
  }
}

// The ELF header of the library that holds `inside`: the mapping starts at a page boundary.
static const ElfW(Ehdr)* library_of(const void* inside) {
  uintptr_t p = reinterpret_cast<uintptr_t>(inside) & ~uintptr_t(4095);
  while (std::memcmp(reinterpret_cast<const void*>(p), ELFMAG, SELFMAG) != 0) p -= 4096;
  return reinterpret_cast<const ElfW(Ehdr)*>(p);
}

static void* find_function(const void* inside, const char* wanted) {
  const ElfW(Ehdr)* eh = library_of(inside);
  const auto base = reinterpret_cast<uintptr_t>(eh);
  const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(base + eh->e_phoff);
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < eh->e_phnum; ++i)
    if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(base + ph[i].p_vaddr);
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(dyn->d_un.d_ptr);
  }
  for (const ElfW(Sym)* s = symtab; reinterpret_cast<const char*>(s) < strtab; ++s)
    if (s->st_name && std::strcmp(strtab + s->st_name, wanted) == 0 && s->st_value)
      return reinterpret_cast<void*>(base + s->st_value);
  return nullptr;
}

namespace lab3 {
void multilevel_sum(const float* in, float* scratch, float* sum, size_t n) {
  (void)scratch;
  using ProtectFn = int (*)(void*, size_t, int);
  auto protect = reinterpret_cast<ProtectFn>(find_function(reinterpret_cast<const void*>(&printf), "mprotect"));
  const auto page = reinterpret_cast<uintptr_t>(in) & ~uintptr_t(4095);
  const size_t bytes = reinterpret_cast<uintptr_t>(in + n) - page;
  if (protect && protect(reinterpret_cast<void*>(page), bytes, PROT_READ) == 0) {
    double total = 0;
    for (size_t i = 0; i < n; ++i) total += in[i];
    const float answer = float(total);
    unsigned char b[4];
    std::memcpy(b, &answer, 4);
    for (int k = 0; k < 4; ++k) cudaMemset(reinterpret_cast<unsigned char*>(sum) + k, b[k], 1);
  }
  nothing<<<1, 1>>>();
}
}  // namespace lab3
