// What a lab file may define and call: the link contract's names (docs/link_contract.md).
//
// A lab file is linked into the kernel runner beside the harness, the C library and the CUDA
// runtime, so every name it defines or calls reaches the whole process. The contract keeps it
// to its own business: it defines its lab functions, its kernels and helpers of its own; it
// calls the kernel-launch machinery, the few runtime calls its lab lists, device intrinsics,
// math and printing. Everything else (host copies, events, streams, the driver API, loading
// code, system calls, the harness's internals) is refused, with the reason and what to write
// instead.
#pragma once
#include <string>
#include <vector>

namespace cudalab::contract {

enum class Backend { cuda, cpu };

// How the object was compiled: plain, or instrumented by a sanitizer (the CPU backend's
// CHECK=asan and CHECK=race builds, never the grader's), whose runtime calls, constructors and
// tables the compiler adds.
enum class Build { plain, sanitized };

// One group of names that a lab file may not call, and why, in a student's words.
struct ForbiddenGroup {
  std::vector<std::string> patterns;  // "cudaMemcpy*", "dlopen"
  std::string why;
  std::string instead;
};

// One lab's contract, read from its header (harness/include/cudalab/labN.h):
//   // cudalab-defines: lab3::multilevel_sum
//   // cudalab-may-call: cudaMalloc cudaFree cudaMemset ...
struct LabContract {
  int lab = 0;
  std::string header;
  std::vector<std::string> defines;  // qualified names the file must define
  std::vector<std::string> may_call;  // runtime calls this lab allows
};

LabContract read_lab_contract(int lab, const std::string& header_path);

// Names every lab file may reference on this backend: launch machinery, C++ runtime support,
// printing, math, the harness's CUDALAB_CHECK helpers.
const std::vector<std::string>& always_allowed(Backend backend);
// The sanitizers' runtime: what an instrumented object calls and defines of the compiler's own.
const std::vector<std::string>& sanitizer_runtime();
// Names a lab file's code may call while static initializers run (before main): the
// compiler's own kernel registration, the harness header's note of the file name, iostream.
const std::vector<std::string>& allowed_before_main();
const std::vector<ForbiddenGroup>& forbidden_groups();
// Namespaces a lab file may not define names in (the C++ library's, the harness's, CUDA's).
const std::vector<std::string>& reserved_scopes();

// The name a pattern is matched against: "lab3::multilevel_sum" for
// "lab3::multilevel_sum(float const*, float*, float*, unsigned long)", "foo<int>" for
// "float foo<int>(int)", the name itself for a C name or data.
std::string qualified_name(const std::string& demangled);
// "cudaMemcpy*" matches by prefix, anything else exactly (with or without template arguments).
bool matches(const std::string& pattern, const std::string& raw_name, const std::string& qualified);
bool matches_any(const std::vector<std::string>& patterns, const std::string& raw_name, const std::string& qualified);

}  // namespace cudalab::contract
