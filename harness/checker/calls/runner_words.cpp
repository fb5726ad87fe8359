#include "runner_words.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "printable.h"
#include "checker/types/number_words.h"

namespace cudalab {

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string without_spaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// Whether `word` occurs in text as a whole identifier (not inside a longer one).
bool has_identifier(const std::string& text, const std::string& word) {
  if (word.empty()) return false;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !ident_char(text[at - 1])) && (end >= text.size() || !ident_char(text[end]))) return true;
  }
  return false;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 120 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), ident_char);
}

std::string basename_of(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

struct ErrorName {
  int32_t code;
  const char* name;
  const char* words;
};
// The CUDA runtime's own names and sentences (cudaGetErrorName, cudaGetErrorString; CUDA 13).
constexpr ErrorName kErrors[] = {
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {4, "cudaErrorCudartUnloading", "driver shutting down"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {16, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {35, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {209, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {214, "cudaErrorECCUncorrectable", "uncorrectable ECC error encountered"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {714, "cudaErrorHardwareStackError", "hardware stack error"},
    {715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {716, "cudaErrorMisalignedAddress", "misaligned address"},
    {717, "cudaErrorInvalidAddressSpace", "operation not supported on global/shared address space"},
    {718, "cudaErrorInvalidPc", "invalid program counter"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {999, "cudaErrorUnknown", "unknown error"},
};
constexpr int32_t kMemoryAllocation = 2, kInvalidConfiguration = 9, kIllegalAddress = 700, kLaunchTimeout = 702;

// The CPU backend's diagnoses, recognized by the harness's own words in the emulator's account
// (a lab file cannot put them there: only a real fault does), each said in the checker's words.
struct Diagnosis {
  const char* sign;
  const char* words;
  bool past_array_end = false;  // the report's cause is past_array_end (the grader acts on it)
};
constexpr Diagnosis kDiagnoses[] = {
    {"must call the same warp operation",
     "the lanes of a warp waited in different warp operations, or some had returned: every lane named in the mask "
     "must call the same warp operation. Keep it outside the `if` (let idle lanes pass 0), or pass a mask of the "
     "lanes that really take part"},
    {"must reach the same __syncthreads()",
     "the threads of a block waited at different __syncthreads(): every thread of a block must reach the same "
     "__syncthreads(). Move the barrier out of the if/else or loop that splits the threads"},
    {"overflowed its", "a thread overflowed its stack (a large local array, or deep recursion?)"},
    {"called __trap()", "a thread called __trap()"},
    // The race build's own memory checks (harness/runner/emulator/bounds.cpp, race.cpp), which a
    // GPU's plain run lets pass: the grader takes these from its emulator run (emulator_verdicts.cpp).
    {"compute-sanitizer's memcheck names it): make the array large enough",
     "a thread indexed an array past its end: on a GPU that reads or overwrites another variable without any "
     "error. Check the index against the array's size",
     true},
    {"compute-sanitizer's memcheck names it). Test the index",
     "a thread read past the end of an array: on a GPU that reads whatever follows it without any error. Check the "
     "index against the array's size before the load",
     true},
};

const Diagnosis* diagnosis_in(const wire::CallReply& reply) {
  std::string all = reply.message;
  for (const auto& n : reply.notes) all += "\n" + n;
  for (const auto& d : kDiagnoses)
    if (all.find(d.sign) != std::string::npos) return &d;
  return nullptr;
}

std::string diagnosis_of(const wire::CallReply& reply) {
  const Diagnosis* d = diagnosis_in(reply);
  return d ? d->words : "";
}

}  // namespace

LabSource read_lab_source(const std::string& path) {
  LabSource s;
  s.shown = printable(path, 200);
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (4 << 20)) return s;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!(text << in.rdbuf())) return s;
  s.text = text.str();
  s.lines = size_t(std::count(s.text.begin(), s.text.end(), '\n')) + (!s.text.empty() && s.text.back() != '\n');
  return s;
}

std::string code_without_comments(const std::string& t) {
  std::string code = t;
  for (size_t i = 0; i + 1 < code.size(); ++i) {
    if (code[i] == '"') {  // a string's "//" is no comment
      while (++i < code.size() && code[i] != '"' && code[i] != '\n') i += code[i] == '\\';
      continue;
    }
    const bool line = code.compare(i, 2, "//") == 0, block = code.compare(i, 2, "/*") == 0;
    if (!line && !block) continue;
    const size_t end = line ? code.find('\n', i) : code.find("*/", i + 2);
    const size_t stop = end == std::string::npos ? code.size() : line ? end : end + 2;
    for (size_t j = i; j < stop; ++j)
      if (code[j] != '\n') code[j] = ' ';
    i = stop - 1;
  }
  return code;
}

std::string cuda_error_words(int32_t code) {
  for (const auto& e : kErrors)
    if (e.code == code) return std::string(e.words) + " (" + e.name + ")";
  return "CUDA error " + std::to_string(code);
}

std::string checked_kernel(const std::string& name, const std::vector<wire::Launch>& launches, const LabSource& src) {
  if (name.empty() || name.size() > 200) return "";
  for (const auto& l : launches)
    if (l.kernel == name) return printable(name, 200);
  return is_identifier(name) && has_identifier(src.text, name) ? name : "";
}

std::string checked_call(const std::string& call, const LabSource& src) {
  const std::string compact = without_spaces(call);
  if (!compact.empty() && call.size() <= 300 && !src.text.empty() &&
      without_spaces(src.text).find(compact) != std::string::npos)
    return printable(call, 300);
  // Else the function's name alone, when it is one of the runtime's.
  size_t end = 0;
  while (end < call.size() && ident_char(call[end])) ++end;
  const std::string fn = call.substr(0, end);
  return fn.size() > 4 && fn.size() <= 60 && fn.rfind("cuda", 0) == 0 ? fn : "";
}

std::string checked_place(const std::string& file, uint32_t line, const LabSource& src) {
  if (src.text.empty() || file.empty()) return "";
  if (file != src.shown && basename_of(file) != basename_of(src.shown)) return "";
  return line >= 1 && line <= src.lines ? src.shown + ":" + std::to_string(line) : src.shown;
}

std::string dims_text(const uint32_t d[3]) {
  return with_commas(d[0]) + " x " + with_commas(d[1]) + (d[2] == 1 ? "" : " x " + with_commas(d[2]));
}

namespace {

// CUDALAB_CHECK_LAUNCH reports its own line, which follows the launch: the launch is the nearest
// line at or above it that names the kernel and opens `<<<` (a few lines up at most). The line
// given when none is found.
uint32_t launch_line(const LabSource& src, const std::string& kernel, uint32_t check_line) {
  if (kernel.empty() || src.text.empty() || check_line < 1 || check_line > src.lines) return check_line;
  std::vector<std::string> lines(1);
  for (char c : src.text)
    if (c == '\n')
      lines.emplace_back();
    else
      lines.back().push_back(c);
  for (uint32_t l = check_line; l >= 1 && l + 8 > check_line; --l) {
    const std::string& text = lines[l - 1];
    const size_t at = text.find(kernel);
    if (at != std::string::npos && text.find("<<<", at) != std::string::npos) return l;
  }
  return check_line;
}

// Why CUDA refused a launch, from the grid and block the record saw asked for ("" when the
// record has no launch of that kernel, or nothing in it is out of range).
std::string refused_launch_words(const std::vector<wire::Launch>& launches, const std::string& kernel) {
  const wire::Launch* l = nullptr;
  for (const auto& x : launches)
    if (kernel.empty() || x.kernel == kernel) l = &x;
  if (!l) return "";
  const uint64_t threads = uint64_t(l->block[0]) * l->block[1] * l->block[2];
  const std::string asked =
      "you asked for a grid of " + dims_text(l->grid) + " blocks of " + dims_text(l->block) + " threads";
  if (uint64_t(l->grid[0]) * l->grid[1] * l->grid[2] == 0)
    return asked + ": a grid needs at least one block in each dimension";
  if (threads == 0 || threads > 1024)
    return asked + ": a block holds 1 to 1,024 threads, and yours has " + with_commas(threads);
  if (l->grid[1] > 65535 || l->grid[2] > 65535) return asked + ": gridDim.y and gridDim.z may be at most 65,535";
  if (l->block[2] > 64) return asked + ": blockDim.z may be at most 64";
  // The one launch limit a kernel's attribute moves: a GPU gives a block 48 KiB of dynamic shared
  // memory unless the attribute was raised first, and never more than its opt-in limit.
  if (l->shared_bytes > 48 * 1024)
    return "you asked for " + with_commas(l->shared_bytes) + " bytes of dynamic shared memory per block: above " +
           "48 KiB (49,152 bytes) a launch needs cudaFuncSetAttribute(" +
           (l->kernel.empty() ? "kernel" : printable(l->kernel)) +
           ", cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first, with at least the bytes it asks for, and no "
           "block gets more than 227 KiB (232,448 bytes) on an H100";
  return "";
}

}  // namespace

bool past_array_end(const wire::CallReply& reply) {
  const Diagnosis* d = diagnosis_in(reply);
  return d && d->past_array_end;
}

std::string failure_message(const wire::CallReply& reply, const std::string& function, const LabSource& src) {
  const wire::Failure& f = reply.failure;
  const std::string error = cuda_error_words(f.cuda_code);
  const std::string kernel = checked_kernel(f.kernel, reply.launches, src);
  const bool at_launch = f.cause == wire::Cause::Launch || f.cause == wire::Cause::KernelRun;
  const std::string place = checked_place(f.file, at_launch ? launch_line(src, kernel, f.line) : f.line, src);
  const std::string diagnosis = diagnosis_of(reply);
  const std::string kernel_named = kernel.empty() ? "a kernel" : kernel;
  if (f.cuda_code == kLaunchTimeout)  // a time limit, said as the checker's own is (lab_call.cpp)
    return (kernel.empty() ? function : "kernel " + kernel + (place.empty() ? "" : " (launched at " + place + ")")) +
           " did not finish within the GPU's time limit for a kernel (" + error +
           "): is a loop not ending, or are threads waiting at a barrier that others never reach?";
  std::string m;
  switch (f.cause) {
    case wire::Cause::CudaCall: {
      const std::string call = checked_call(f.call, src);
      m = (call.empty() ? std::string("a CUDA call") : call) + (place.empty() ? "" : " at " + place) +
          " failed: " + error;
      break;
    }
    case wire::Cause::Launch:
      m = "launching " + kernel_named + (place.empty() ? "" : " at " + place) + " failed: " + error;
      if (const std::string why = refused_launch_words(reply.launches, kernel); !why.empty())
        m += ": " + why;
      else if (f.cuda_code == kInvalidConfiguration)
        m += " (a block holds at most 1024 threads, the grid needs at least one block, gridDim.y and gridDim.z may be "
             "at "
             "most 65,535, and a block may not ask for more shared memory than the GPU has)";
      break;
    case wire::Cause::KernelRun:
      m = "kernel " + kernel_named + (place.empty() ? "" : " (launched at " + place + ")") +
          " failed while running: " + error;
      break;
    case wire::Cause::LabCall:
      m = function + " failed: " + error;
      if (const std::string why = refused_launch_words(reply.launches, ""); !why.empty())
        m += ": " + why;
      else if (diagnosis.empty() && f.cuda_code != kIllegalAddress)
        m += " (add CUDALAB_CHECK_LAUNCH(\"name\") after each launch to find which kernel)";
      break;
    case wire::Cause::RunnerWork:
      m = f.cuda_code == kMemoryAllocation
              ? "the kernel runner could not make the call's buffers on the GPU: " + error + "; try a smaller --size"
              : "the kernel runner's own work for the call failed: " + error;
      break;
    case wire::Cause::Exception: m = "your code threw an exception out of " + function; break;
    case wire::Cause::OtherThrow:
      m = "your code threw something that is not a std::exception out of " + function;
      break;
    case wire::Cause::BadRequest:
      m = "the kernel runner could not carry out the call (it does not fit the runner's lab: was it built for another "
          "one?)";
      break;
    case wire::Cause::InputsNotMapped:  // answered by sending the inputs again as values (lab_call.cpp)
      m = "the kernel runner could not take the inputs the checker made on the GPU";
      break;
    case wire::Cause::None: m = "the kernel runner reported a failure without saying what failed"; break;
  }
  if (!diagnosis.empty())
    m += ": " + diagnosis;
  else if (f.cuda_code == kIllegalAddress && f.cause == wire::Cause::LabCall)
    m += ": your code touched memory outside its arrays, or device memory from host code (only kernels may)";
  else if (f.cuda_code == kIllegalAddress && f.cause != wire::Cause::CudaCall)
    m += ": some thread read or wrote outside its arrays. Check each index against its array's size";
  return m;
}

namespace {

// "FILE:LINE" from the runner, as a checked place of the lab file ("" when it is not one).
std::string place_in(const std::string& where, const LabSource& src) {
  const size_t last = where.find_last_of(':');
  if (last == std::string::npos || last + 1 >= where.size() || where.size() - last > 10 ||
      where.find_first_not_of("0123456789", last + 1) != std::string::npos)
    return "";
  return checked_place(where.substr(0, last), uint32_t(std::stoul(where.substr(last + 1))), src);
}

// "thread 3 of block 0" from the runner's account, when it is made of numbers only.
std::string thread_in(const std::string& note, size_t from) {
  const size_t at = note.find("thread ", from);
  if (at == std::string::npos) return "";
  const size_t of = note.find(" of block ", at);
  const size_t end = of == std::string::npos ? of : note.find_first_of(" ,", of + 10);
  if (end == std::string::npos || end - at > 60) return "";
  const std::string t = note.substr(at + 7, of - at - 7), b = note.substr(of + 10, end - of - 10);
  const char* digits = "0123456789(),";
  if (t.empty() || b.empty() || t.find_first_not_of(digits) != std::string::npos ||
      b.find_first_not_of(digits) != std::string::npos)
    return "";
  return "thread " + t + " of block " + b;
}

const char* kind_words(const std::string& kind) {
  if (kind == "write") return "a write";
  if (kind == "read") return "a read";
  if (kind == "atomic") return "an atomic update";
  if (kind == "atomic read") return "an atomic read";
  return "";
}

// The global memory a race touched, from the detector's account ("..., thread 1 of block 0 read
// it (d_scratch, at byte 4) at ..."): the name when it is one of the call's buffers (the
// checker's own names) or a __device__ variable of the lab file, "a cudaMalloc allocation of
// yours" for the lab's own; "" otherwise.
std::string global_memory_name(const std::string& n, size_t from, const std::vector<std::string>& buffers,
                               const LabSource& src) {
  const size_t of = n.find(" of block ", from);
  const size_t open = of == std::string::npos ? of : n.find(" (", of);
  const size_t close = open == std::string::npos ? open : n.find(')', open);
  if (close == std::string::npos || close - open > 300) return "";
  const std::string inside = n.substr(open + 2, close - open - 2);
  const std::string name = inside.substr(0, inside.find(", at byte "));
  if (std::find(buffers.begin(), buffers.end(), name) != buffers.end()) return name;
  const std::string variable = "the __device__ variable ";
  if (name.rfind(variable, 0) == 0 && is_identifier(name.substr(variable.size())) &&
      has_identifier(src.text, name.substr(variable.size())))
    return name.substr(variable.size());
  const std::string own = "-byte cudaMalloc allocation of yours";
  if (name.size() > own.size() + 2 && name.rfind("a ", 0) == 0 &&
      name.compare(name.size() - own.size(), own.size(), own) == 0 &&
      name.find_first_not_of("0123456789", 2) == name.size() - own.size())
    return "a cudaMalloc allocation of yours";
  return "";
}

// How a read and a write at one line end (race_in_checker_words), and what finds them.
const char* const kLostUpdate =
    ": two threads can both read the old value before either writes, and one update is lost (a plain += "
    "or ++): use atomicAdd";

// The race detector's note (CHECK=race): "cudalab: note: data race on shared memory at FILE:LINE
// (write) and FILE:LINE (atomic): in kernel ..., thread 3 of block 0 ... and thread 40 of block
// 0 ...". In the checker's words: the kind of memory and access from fixed lists, the places
// when they are the lab file's lines, the memory when it is the lab file's array or one of the
// call's buffers, the threads when they are numbers. "" when it is not one.
std::string race_in_checker_words(const std::string& n, const LabSource& src, const std::vector<std::string>& buffers) {
  const std::string head = "cudalab: note: data race ";
  if (n.rfind(head, 0) != 0) return "";
  static const std::pair<const char*, const char*> kSpaces[] = {
      {"on shared memory at ", "shared memory"},
      {"on global memory at ", "global memory"},
      {"between blocks on global memory at ", "global memory, between blocks"}};
  for (const auto& [prefix, space] : kSpaces) {
    if (n.compare(head.size(), std::strlen(prefix), prefix) != 0) continue;
    // "A (k1) and B (k2): "
    const size_t from = head.size() + std::strlen(prefix);
    const size_t open1 = n.find(" (", from), close1 = n.find(") and ", from);
    const size_t open2 = close1 == std::string::npos ? close1 : n.find(" (", close1 + 6);
    const size_t close2 = open2 == std::string::npos ? open2 : n.find("): ", open2);
    if (close2 == std::string::npos || open1 > close1) return "";
    std::string a = place_in(n.substr(from, open1 - from), src);
    std::string b = place_in(n.substr(close1 + 6, open2 - close1 - 6), src);
    const char* k1 = kind_words(n.substr(open1 + 2, close1 - open1 - 2));
    const char* k2 = kind_words(n.substr(open2 + 2, close2 - open2 - 2));
    if (!*k1 || !*k2) return "";
    std::string t1 = thread_in(n, close2), t2 = t1.empty() ? "" : thread_in(n, n.find(" and thread ", close2));
    // The earlier line first, whichever access came first: the same race reads the same in
    // every check and schedule.
    auto line_of = [](const std::string& p) { return std::atoi(p.c_str() + p.find_last_of(':') + 1); };
    if (!a.empty() && !b.empty() && line_of(b) < line_of(a)) {
      std::swap(a, b);
      std::swap(k1, k2);
      std::swap(t1, t2);
    }
    const bool shared = std::strcmp(space, "shared memory") == 0, between = !shared && std::strstr(space, "between");
    // The __shared__ array, when the runner's name for it is an identifier of the lab file; the
    // global buffer, when it is one the checker knows.
    std::string array;
    if (const size_t at = n.find(" of the __shared__ array ", close2); shared && at != std::string::npos) {
      const size_t from_name = at + 25;
      const std::string name = n.substr(from_name, n.find(')', from_name) - from_name);
      if (is_identifier(name) && has_identifier(src.text, name)) array = " (" + name + ")";
    }
    if (!shared)
      if (const std::string name = global_memory_name(n, close2, buffers, src); !name.empty())
        array = " (" + name + ")";
    const std::string head = std::string("a data race on ") + (shared ? "shared memory" : "global memory") + array +
                             (between ? ", between blocks" : "") + ": ";
    const std::string threads = t1.empty() || t2.empty() ? std::string("") : " (" + t1 + ", " + t2 + ")";
    // One line whose every thread writes the same word (a block's result written without
    // `if (threadIdx.x == 0)`): no barrier orders that, one writer does.
    if (!a.empty() && a == b && std::strcmp(k1, "a write") == 0 && std::strcmp(k2, "a write") == 0)
      return head + "writes at " + a + " touch the same memory from two threads" + threads +
             (between ? ", of two blocks: let one block write it, or add with atomicAdd"
                      : ": let one thread write it (`if (threadIdx.x == 0)`)");
    // A read and a write at one line (a plain += or ++ where an atomic belongs): on a GPU both
    // threads can read before either writes, a lost update the emulator's one-after-another
    // threads never make, so no order it runs shows it (is_lost_update_race).
    const bool read_and_write = (std::strcmp(k1, "a write") == 0 && std::strcmp(k2, "a read") == 0) ||
                                (std::strcmp(k1, "a read") == 0 && std::strcmp(k2, "a write") == 0);
    if (!a.empty() && a == b && read_and_write)
      return head + "a read and a write at " + a + " touch the same memory from two threads" + threads + kLostUpdate;
    std::string s = head + k1 + " at " + (a.empty() ? std::string("a line of yours") : a) + " and " + k2 + " at " +
                    (b.empty() ? std::string("a line of yours") : b) + " touch the same memory from two threads" +
                    threads;
    if (!between)
      return s +
             " with no __syncthreads() between them: put one between them, where every thread of the block "
             "reaches it";
    return s +
           ", and blocks run in no order CUDA promises: let a second launch read what the first wrote (or "
           "let the last block do it: __threadfence() and an atomic in every block, and read only once your "
           "atomic says the others are done)";
  }
  return "";
}

}  // namespace

bool is_race_note(const std::string& note) { return note.rfind("a data race on ", 0) == 0; }
bool is_lost_update_race(const std::string& note) {
  return is_race_note(note) && note.find(kLostUpdate) != std::string::npos;
}

std::vector<std::string> notes_in_checker_words(const std::vector<std::string>& notes,
                                                const std::vector<wire::Launch>& launches, const LabSource& src,
                                                const std::vector<std::string>& buffers) {
  std::vector<std::string> out;
  for (const auto& n : notes) {
    if (std::string race = race_in_checker_words(n, src, buffers); !race.empty()) {
      out.push_back(race);
      continue;
    }
    const std::string barrier = "barrier divergence at ";
    if (size_t at = n.find(barrier); at != std::string::npos && n.rfind("cudalab: note: ", 0) == 0) {
      // "... barrier divergence at FILE:LINE: ..."
      const size_t from = at + barrier.size();
      const size_t colon = n.find(": ", from);
      const std::string where = n.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
      const size_t last = where.find_last_of(':');
      std::string place;
      if (last != std::string::npos && last + 1 < where.size() &&
          where.find_first_not_of("0123456789", last + 1) == std::string::npos && where.size() - last <= 10)
        place = checked_place(where.substr(0, last), uint32_t(std::stoul(where.substr(last + 1))), src);
      out.push_back("barrier divergence at " + (place.empty() ? std::string("a __syncthreads() of yours") : place) +
                    ": some threads of a block left (an early `return`, or an `if` not every thread enters) before a "
                    "__syncthreads() the others waited at. CUDA requires every thread of the block to reach it: put "
                    "the work in `if (i < n) { ... }` and keep the __syncthreads() outside it");
      continue;
    }
    if (n.rfind("cudalab: note: warp-synchronous code: in kernel ", 0) == 0) {
      const size_t from = std::string("cudalab: note: warp-synchronous code: in kernel ").size();
      const size_t space = n.find(' ', from);
      const std::string kernel =
          checked_kernel(n.substr(from, space == std::string::npos ? std::string::npos : space - from), launches, src);
      out.push_back("warp-synchronous code in " + (kernel.empty() ? std::string("a kernel") : "kernel " + kernel) +
                    ": a lane read a value another lane of its warp wrote through a volatile pointer, with no "
                    "__syncwarp() between. CUDA has not promised lockstep warps since Volta: put __syncwarp() between "
                    "the steps");
    }
  }
  return out;
}

std::string cut_runner_words(const std::string& text) {
  std::string s = printable(text, kRunnerWordsChars + 1);
  if (s.size() > kRunnerWordsChars) s = s.substr(0, kRunnerWordsChars - 3) + "...";
  return s;
}

std::vector<std::string> runner_words(const wire::CallReply& reply) {
  std::vector<std::string> out;
  auto add = [&](const std::string& text) {
    // Newlines of a multi-line account become spaces, not question marks.
    std::string flat = text;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    if (!flat.empty() && out.size() < kRunnerWordsLines) out.push_back(cut_runner_words(flat));
  };
  if (reply.outcome != wire::Outcome::Ok) {
    const std::string threw = "your code threw an exception: ";
    add(reply.message.rfind(threw, 0) == 0 ? "the exception's message: " + reply.message.substr(threw.size())
                                           : reply.message);
  }
  for (const auto& n : reply.notes) add(n.rfind("cudalab: ", 0) == 0 ? n.substr(9) : n);
  return out;
}

}  // namespace cudalab
