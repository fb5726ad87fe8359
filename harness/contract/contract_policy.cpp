#include "contract_policy.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalab::contract {

namespace {

// The C++ runtime's own support that compiled code calls without the source naming it.
const std::vector<std::string> kLanguageSupport = {"__gxx_personality_v0",
                                                   "_Unwind_Resume",
                                                   "__cxa_guard_acquire",
                                                   "__cxa_guard_release",
                                                   "__cxa_guard_abort",
                                                   "__cxa_atexit",
                                                   "atexit",
                                                   "__dso_handle",
                                                   "__cxa_begin_catch",
                                                   "__cxa_end_catch",
                                                   "__cxa_rethrow",
                                                   "__cxa_allocate_exception",
                                                   "__cxa_free_exception",
                                                   "__cxa_throw",
                                                   "__cxa_pure_virtual",
                                                   "__cxa_call_unexpected",
                                                   "__cxa_throw_bad_array_new_length",
                                                   "__cxa_bad_cast",
                                                   "__cxa_bad_typeid",
                                                   "__cxa_get_exception_ptr",
                                                   "__cxa_deleted_virtual",
                                                   "typeinfo for std::*",
                                                   "std::bad_array_new_length::*",
                                                   "std::bad_cast::*",
                                                   "__stack_chk_fail",
                                                   "_GLOBAL_OFFSET_TABLE_",
                                                   "std::terminate",
                                                   "std::__throw_*",
                                                   "operator new*",
                                                   "operator delete*",
                                                   "typeinfo for std::*",
                                                   "typeinfo for __cxxabiv1::*",
                                                   "vtable for __cxxabiv1::*",
                                                   "std::exception::*",
                                                   "std::bad_alloc::*",
                                                   "std::runtime_error::*",
                                                   "std::logic_error::*",
                                                   "std::invalid_argument::*",
                                                   "std::out_of_range::*",
                                                   "std::length_error::*",
                                                   "vtable for std::*",
                                                   "__assert_fail",
                                                   "abort",
                                                   "exit",
                                                   "__cxa_thread_atexit",
                                                   "__tls_get_addr"};

// Host memory of the file's own, and the library calls the compiler makes for copies.
const std::vector<std::string> kHostMemory = {
    "malloc", "calloc", "realloc", "free",    "aligned_alloc", "posix_memalign", "memcpy",       "memmove", "memset",
    "memcmp", "strlen", "strcmp",  "strncmp", "__memcpy_chk",  "__memmove_chk",  "__memset_chk", "qsort"};

// Printing to the terminal (never to a file: fopen and friends are not on the list).
const std::vector<std::string> kPrinting = {"printf",
                                            "puts",
                                            "putchar",
                                            "fprintf",
                                            "fputs",
                                            "fputc",
                                            "putc",
                                            "fwrite",
                                            "fflush",
                                            "vprintf",
                                            "vfprintf",
                                            "snprintf",
                                            "sprintf",
                                            "vsnprintf",
                                            "stdout",
                                            "stderr",
                                            "__printf_chk",
                                            "__fprintf_chk",
                                            "__vprintf_chk",
                                            "__vfprintf_chk",
                                            "__snprintf_chk",
                                            "__sprintf_chk",
                                            "__vsnprintf_chk",
                                            "std::cout",
                                            "std::cerr",
                                            "std::clog",
                                            "std::basic_ostream*",
                                            "std::ostream::*",
                                            "std::__ostream_insert*",
                                            "std::ios_base::Init::*",
                                            "std::basic_ios*",
                                            "std::endl*",
                                            "std::flush*",
                                            "std::ios_base::*",
                                            "std::ios_base_library_init",
                                            "std::__cxx11::basic_string*",
                                            "std::__cxx11::to_string*",
                                            "std::to_string*"};

// Host math (the C library's), each as double, float and long double: sqrt, sqrtf, sqrtl.
std::vector<std::string> math_names() {
  const char* base[] = {"sqrt",   "cbrt",  "exp",  "exp2",      "expm1",     "log",   "log2",      "log10",    "log1p",
                        "pow",    "sin",   "cos",  "tan",       "asin",      "acos",  "atan",      "atan2",    "sinh",
                        "cosh",   "tanh",  "fabs", "floor",     "ceil",      "round", "lround",    "llround",  "trunc",
                        "fmod",   "fmin",  "fmax", "frexp",     "ldexp",     "erf",   "erfc",      "tgamma",   "lgamma",
                        "hypot",  "nan",   "rint", "lrint",     "nearbyint", "modf",  "remainder", "copysign", "fma",
                        "scalbn", "ilogb", "logb", "nextafter", "sincos"};
  std::vector<std::string> names;
  for (const char* b : base)
    for (const char* suffix : {"", "f", "l"}) names.push_back(std::string(b) + suffix);
  names.push_back("__isnan*");
  names.push_back("__isinf*");
  names.push_back("__finite*");
  return names;
}

// Work on the device that a lab file does honestly: copies between its own device buffers (the
// runner refuses any other direction at the call: harness/runner/copy_check.h), streams and
// events of its own (the runner makes every stream a blocking one, so the harness's timing covers
// them all), and asking what a pointer is.
const std::vector<std::string> kDeviceWork = {"cudaMemcpy",
                                              "cudaMemcpyAsync",
                                              "cudaStreamCreate",
                                              "cudaStreamCreateWithFlags",
                                              "cudaStreamCreateWithPriority",
                                              "cudaStreamDestroy",
                                              "cudaStreamSynchronize",
                                              "cudaStreamQuery",
                                              "cudaStreamWaitEvent",
                                              "cudaEventCreate",
                                              "cudaEventCreateWithFlags",
                                              "cudaEventRecord",
                                              "cudaEventSynchronize",
                                              "cudaEventQuery",
                                              "cudaEventDestroy",
                                              "cudaEventElapsedTime",
                                              "cudaPointerGetAttributes",
                                              "cudaFuncSetCacheConfig",
                                              "cudaDeviceSetCacheConfig",
                                              "cudaDeviceGetStreamPriorityRange",
                                              "cudaFuncSetSharedMemConfig",
                                              "cudaDeviceSetSharedMemConfig"};

// What CUDALAB_CHECK and CUDALAB_CHECK_LAUNCH call (harness/include/cudalab/launch_check.h).
const std::vector<std::string> kHarnessHelpers = {"cudalab::check_call", "cudalab::check_launch",
                                                  "cudalab::note_source_file"};

// What nvcc's code for a `kernel<<<...>>>` launch and the kernel's registration calls.
const std::vector<std::string> kCudaLaunchMachinery = {
    "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",  "__cudaUnregisterFatBinary",
    "__cudaRegisterFunction",  "__cudaRegisterVar",           "__cudaRegisterManagedVar",
    "__cudaInitModule",        "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
    "__cudaLaunchKernel",      "__cudaLaunchKernel_ptsz",     "__cudaGetKernel",
    "cudaLaunchKernel",        "cudaGetSymbolAddress",        "cudaGetSymbolSize"};

// What the CPU backend's headers (harness/runner/emulator/include) make compiled lab code call: the
// launch, barriers, warp collectives and the built-in variables. The emulator's controls (the
// schedule, observers, notes) are not on the list.
const std::vector<std::string> kCpuLaunchMachinery = {"cudalab_cpu::launch_kernel",
                                                      "cudalab_cpu::block_barrier",
                                                      "cudalab_cpu::warp_collective",
                                                      "cudalab_cpu::active_mask",
                                                      "cudalab_cpu::kernel_return",
                                                      "cudalab_cpu::trap",
                                                      "cudalab_cpu::warp_turn",
                                                      "cudalab_cpu::dynamic_smem_base",
                                                      "threadIdx",
                                                      "blockIdx",
                                                      "blockDim",
                                                      "gridDim"};

std::vector<std::string> joined(std::initializer_list<const std::vector<std::string>*> lists) {
  std::vector<std::string> all;
  for (const auto* list : lists) all.insert(all.end(), list->begin(), list->end());
  return all;
}

size_t skip_template_arguments(const std::string& s, size_t i) {
  int depth = 0;
  for (; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && --depth == 0) return i + 1;
  }
  return i;
}

std::string without_template_arguments(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '<' && s.compare(0, 8, "operator") != 0) {
      i = skip_template_arguments(s, i);
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

LabContract read_lab_contract(int lab, const std::string& header_path) {
  std::ifstream in(header_path);
  if (!in) throw std::runtime_error("cannot read the lab's contract header " + header_path);
  LabContract contract{lab, header_path, {}, {}};
  std::string line;
  while (std::getline(in, line)) {
    for (auto [tag, list] :
         {std::pair{"// cudalab-defines:", &contract.defines}, std::pair{"// cudalab-may-call:", &contract.may_call}}) {
      size_t at = line.find(tag);
      if (at == std::string::npos) continue;
      std::istringstream words(line.substr(at + std::string(tag).size()));
      for (std::string w; words >> w;) list->push_back(w);
    }
  }
  if (contract.defines.empty())
    throw std::runtime_error(header_path +
                             " has no '// cudalab-defines:' line: the contract names the lab's functions");
  return contract;
}

const std::vector<std::string>& always_allowed(Backend backend) {
  static const std::vector<std::string> math = math_names();
  static const std::vector<std::string> cuda = joined(
      {&kLanguageSupport, &kHostMemory, &kPrinting, &math, &kHarnessHelpers, &kCudaLaunchMachinery, &kDeviceWork});
  static const std::vector<std::string> cpu = joined(
      {&kLanguageSupport, &kHostMemory, &kPrinting, &math, &kHarnessHelpers, &kCpuLaunchMachinery, &kDeviceWork});
  return backend == Backend::cuda ? cuda : cpu;
}

const std::vector<std::string>& sanitizer_runtime() {
  static const std::vector<std::string> names = {
      "__asan_*",           "__ubsan_*",        "__tsan_*",  "__sanitizer_*",
      "__lsan_*",           "__odr_asan_gen_*", "___asan_*", "__start_asan_globals",
      "__stop_asan_globals"};
  return names;
}

const std::vector<std::string>& allowed_before_main() {
  static const std::vector<std::string> own = {"cudalab::note_source_file",
                                               "std::ios_base::Init::*",
                                               "std::ios_base_library_init",
                                               "__stack_chk_fail",
                                               "__cxa_atexit",
                                               "atexit",
                                               "__dso_handle",
                                               "__cxa_guard_acquire",
                                               "__cxa_guard_release",
                                               "__cxa_guard_abort",
                                               "__gxx_personality_v0",
                                               "_Unwind_Resume",
                                               "_GLOBAL_OFFSET_TABLE_"};
  static const std::vector<std::string> names = joined({&kCudaLaunchMachinery, &own});
  return names;
}

const std::vector<ForbiddenGroup>& forbidden_groups() {
  static const std::vector<ForbiddenGroup> groups = {
      {{"cudaMemcpy*", "cudaMemcpyAsync*", "cudaMemcpy2D*", "cudaMemcpy3D*", "cudaMemcpyPeer*", "cudaMemcpyToSymbol*",
        "cudaMemcpyFromSymbol*", "cudaMemcpyToArray*", "cudaMemcpyFromArray*", "cudaMemcpyBatch*"},
       "a lab copies only with cudaMemcpy and cudaMemcpyAsync between its own device buffers (2-D, 3-D, symbol, "
       "array, peer and batched copies are not among a lab's calls), and never to or from the host: the harness moves "
       "every input and output",
       "copy between device buffers with cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), or do the copy in a "
       "kernel"},
      {{"cudaMallocHost", "cudaHostAlloc", "cudaMallocManaged", "cudaHostRegister", "cudaHostGetDevicePointer",
        "cudaFreeHost", "cudaHostUnregister", "cudaMemPrefetchAsync", "cudaMemAdvise*"},
       "it makes memory that host code can read, so part of the work could happen on the host",
       "use cudaMalloc for scratch space on the device"},
      {{"cudaGraph*", "cudaStreamBeginCapture*", "cudaStreamEndCapture", "cudaStreamAddCallback", "cudaLaunchHostFunc",
        "cudaProfiler*", "cudaStreamAttachMemAsync", "cudaEventRecordWithFlags"},
       "graphs, stream captures and host callbacks run work the harness's timing and launch record cannot see",
       "launch your kernels directly, on the default stream or streams of your own"},
      {{"cu[A-Z]*", "cudaGetDriverEntryPoint*", "cudaGetFuncBySymbol", "cudaLibrary*", "cudaKernel*", "cudaDeviceReset",
        "cudaSetDevice*", "cudaDeviceSetLimit", "cudaCtx*", "cudaIpc*", "cudaThreadExit"},
       "it reaches below the CUDA runtime (the driver API) or changes the device the harness set up",
       "use kernels, cudaMalloc/cudaFree and the calls the lab's header lists"},
      {{"dlopen", "dlsym", "dlvsym", "dlmopen", "dladdr*", "dlinfo", "dl_iterate_phdr", "dlerror", "dlclose"},
       "it loads or looks up code at run time, code the checks never saw",
       "call only what your file defines and what the lab's header lists"},
      {{"syscall",
        "open",
        "open64",
        "openat*",
        "fopen*",
        "freopen*",
        "read",
        "write",
        "pread*",
        "pwrite*",
        "mmap*",
        "munmap",
        "mprotect",
        "mremap",
        "fork",
        "vfork",
        "clone*",
        "exec*",
        "system",
        "popen",
        "posix_spawn*",
        "pthread_*",
        "std::thread::*",
        "signal",
        "sigaction",
        "raise",
        "kill",
        "socket",
        "connect",
        "send*",
        "recv*",
        "ptrace",
        "prctl",
        "getenv",
        "setenv",
        "unsetenv",
        "putenv",
        "ioctl",
        "fcntl",
        "dup*",
        "pipe*",
        "unlink*",
        "remove",
        "rename",
        "chdir",
        "chmod",
        "setjmp",
        "longjmp",
        "_setjmp",
        "__sigsetjmp",
        "_longjmp",
        "std::basic_ifstream*",
        "std::basic_ofstream*",
        "std::basic_fstream*",
        "std::basic_filebuf*",
        "getpid",
        "usleep",
        "sleep",
        "nanosleep",
        "clock_gettime",
        "gettimeofday",
        "time",
        "std::chrono::*"},
       "it talks to the operating system (files, processes, threads, signals, clocks): a lab file computes and may "
       "print, nothing more",
       "remove it; print with printf if you need to see a value"},
      {{"cudalab::*", "cudalab_cpu::*"},
       "it is the harness's own code, which a lab file may not call (only CUDALAB_CHECK and CUDALAB_CHECK_LAUNCH)",
       "remove the call; the harness records and times your launches itself"},
  };
  return groups;
}

const std::vector<std::string>& reserved_scopes() {
  static const std::vector<std::string> scopes = {
      "std::", "__gnu_cxx::", "__cxxabiv1::", "cudalab::", "cudalab_cpu::", "cuda::",
      "cub::", "thrust::",    "boost::",      "nvcuda::",  "__cuda",        "__nv"};
  return scopes;
}

std::string qualified_name(const std::string& demangled) {
  for (const char* special : {"typeinfo for ", "typeinfo name for ", "vtable for ", "VTT for ", "guard variable for "})
    if (demangled.rfind(special, 0) == 0) return demangled;
  std::string s = demangled;
  for (size_t at; (at = s.find("(anonymous namespace)")) != std::string::npos;) s.replace(at, 21, "{anonymous}");
  // The parameter list starts at the first '(' outside <...> and {...}.
  int depth = 0;
  size_t paren = std::string::npos;
  for (size_t i = 0; i < s.size() && paren == std::string::npos; ++i) {
    if (s[i] == '<' || s[i] == '{') ++depth;
    if (s[i] == '>' || s[i] == '}') --depth;
    if (s[i] == '(' && depth == 0) paren = i;
  }
  std::string head = s.substr(0, paren);
  // A function template's name follows its return type ("float foo<int>(int)"); an operator's
  // name holds a space of its own ("operator new").
  size_t op = head.find("operator");
  size_t limit = op == std::string::npos ? head.size() : op;
  size_t start = 0;
  depth = 0;
  for (size_t i = 0; i < limit; ++i) {
    if (head[i] == '<' || head[i] == '{') ++depth;
    if (head[i] == '>' || head[i] == '}') --depth;
    if (head[i] == ' ' && depth == 0) start = i + 1;
  }
  return head.substr(start);
}

bool matches(const std::string& pattern, const std::string& raw_name, const std::string& qualified) {
  std::string plain = without_template_arguments(qualified);
  if (pattern.size() > 1 && pattern.back() == '*') {
    std::string prefix = pattern.substr(0, pattern.size() - 1);
    // "cu[A-Z]*": the driver API's names (cuMemcpy, cuLaunchKernel), not cudaMalloc.
    if (prefix == "cu[A-Z]")
      return plain.size() > 2 && plain.compare(0, 2, "cu") == 0 && plain[2] >= 'A' && plain[2] <= 'Z' &&
             plain.find("::") == std::string::npos;
    return raw_name.rfind(prefix, 0) == 0 || qualified.rfind(prefix, 0) == 0 || plain.rfind(prefix, 0) == 0;
  }
  return raw_name == pattern || qualified == pattern || plain == pattern;
}

bool matches_any(const std::vector<std::string>& patterns, const std::string& raw_name, const std::string& qualified) {
  for (const auto& p : patterns)
    if (matches(p, raw_name, qualified)) return true;
  return false;
}

}  // namespace cudalab::contract
