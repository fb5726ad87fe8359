// cudalab CPU backend: an array indexed past its end, under CHECK=race (the grader's emulator run).
//
// A __shared__ array one element short, or a loop one step long over a register array, changes
// no output a check can see: on a GPU the element past the end is another variable's (shared
// memory is allocated in granules, registers spill to the thread's own stack), and only
// compute-sanitizer's memcheck names it. Here lab code in the race build is compiled with
// -fsanitize=bounds, which makes g++ test every index of an array whose size it knows (static
// __shared__ arrays, local arrays, fixed arrays in structs; never a pointer, an extern __shared__
// area or a struct's trailing array) and call the handlers below when one is out of range. As
// race.cpp defines ThreadSanitizer's hooks (tsan_hooks.h), this file defines UBSan's (no libubsan is linked):
// inside a kernel the thread stops and the launch fails as a fault would, naming the line, the
// index and the array's type.
#if defined(CUDALAB_CPU_RACE)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "emulator.h"

namespace cudalab_cpu::bounds {
namespace {

// GCC's layout of what it passes (libsanitizer's ubsan_handlers.h, ubsan_value.h).
struct SourceLocation {
  const char* file;
  uint32_t line, column;
};
struct TypeDescriptor {
  uint16_t kind, info;  // kind 0: an integer, info: log2(bits) << 1 | signed
  char name[1];  // "'float [256]'", NUL-terminated
};
struct OutOfBoundsData {
  SourceLocation where;
  const TypeDescriptor* array;
  const TypeDescriptor* index;
};

// The index as a signed number: up to 64 bits it travels in the handle itself.
long long index_value(const TypeDescriptor& t, uintptr_t handle) {
  const unsigned bits = 1u << (t.info >> 1);
  if (t.kind != 0 || bits > 64) return (long long)handle;
  if (!(t.info & 1) || bits == 64) return (long long)handle;
  const unsigned shift = 64 - bits;
  return (long long)(uint64_t(handle) << shift) >> shift;  // sign-extended from its width
}

// The size GCC tested against: the first bound in the array type's name ("'float [32][33]'").
long long extent(const TypeDescriptor& t) {
  const char* open = std::strchr(t.name, '[');
  return open ? std::atoll(open + 1) : -1;
}

std::string type_words(const TypeDescriptor& t) {
  std::string s = t.name;
  if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') s = s.substr(1, s.size() - 2);
  return s;
}

// "used index 256 of an array of 256 elements (float [256]) at lab.cu:12 (column 9): one past its
// last element, [255]. ..."
std::string account(const OutOfBoundsData& d, uintptr_t handle) {
  const long long i = index_value(*d.index, handle), n = extent(*d.array);
  std::string s = "used index " + std::to_string(i) + " of an array of " + std::to_string(n) + " elements (" +
                  type_words(*d.array) + ") at " + (d.where.file ? d.where.file : "?") + ":" +
                  std::to_string(d.where.line) + " (column " + std::to_string(d.where.column) + "): ";
  if (i < 0)
    s += "before its first element, [0]";
  else if (n > 0)
    s += (i == n ? std::string("one") : std::to_string(i - n + 1)) + " past its last element, [" +
         std::to_string(n - 1) + "]";
  else
    s += "outside it";
  return s +
         ". On a GPU a plain run reads or overwrites another variable there without any error "
         "(compute-sanitizer's memcheck names it): make the array large enough, or stop the index at its size";
}

void out_of_bounds(const OutOfBoundsData& d, uintptr_t handle, bool abort) {
  const std::string what = account(d, handle);
  detail::stop_running_thread(cudaErrorIllegalAddress, what);  // a CUDA thread: does not return
  // The lab's host code: said once, and it goes on (a plain run would not notice either).
  static bool said = false;
  if (!said) std::fprintf(stderr, "cudalab: your host code %s\n", what.c_str());
  said = true;
  if (abort) std::abort();
}

}  // namespace
}  // namespace cudalab_cpu::bounds

extern "C" {
void __ubsan_handle_out_of_bounds(void* data, void* index) {
  cudalab_cpu::bounds::out_of_bounds(*static_cast<const cudalab_cpu::bounds::OutOfBoundsData*>(data),
                                     reinterpret_cast<uintptr_t>(index), false);
}
// -fno-sanitize-recover's name for the same check.
void __ubsan_handle_out_of_bounds_abort(void* data, void* index) {
  cudalab_cpu::bounds::out_of_bounds(*static_cast<const cudalab_cpu::bounds::OutOfBoundsData*>(data),
                                     reinterpret_cast<uintptr_t>(index), true);
}
}
#endif
