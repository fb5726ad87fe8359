// Attack: run another program in place of the runner (execve found by hand), one that prints a forged reply.
// expect-exit: 1
// expect-passed: none
// expect-cause: forbidden_call
// expect-message: run a program
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <link.h>
#include "cudalab/lab3.h"

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
  using ExecFn = int (*)(const char*, char* const*, char* const*);
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  if (auto f = reinterpret_cast<ExecFn>(find_function(reinterpret_cast<const void*>(&printf), "execve"))) f("/bin/true", argv, nullptr);
  sum_kernel<<<1, 1>>>(in, sum, n);
}
}  // namespace lab3
