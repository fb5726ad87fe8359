// cudalab CPU backend: the kernel attribute a GPU holds a launch to, its dynamic shared memory
// limit. A GPU refuses a launch that asks for more than 48 KiB of dynamic shared memory unless
// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) raised that
// kernel's limit first, and refuses to raise it past the device's opt-in limit. Without this the
// emulator ran such a launch, and a file the GPU fails passed on the CPU backend (issue 30).
//
// The emulator knows a kernel by the text its launch names it with (rewrite.pl), so the call's
// text names it here too: "&tile_kernel<64>, cudaFuncAttributeMaxDynamicSharedMemorySize, n"
// -> "tile_kernel<64>", also kept as "tile_kernel" for a launch that deduces its arguments. A
// function reached another way (a pointer variable) cannot be matched by name: its limit then
// counts for every kernel, so that honest code is never refused for what the emulator cannot tell.
#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "emulator.h"

namespace {

std::mutex g_mutex;
std::map<std::string, size_t> g_limits;  // kernel text (and its bare name) -> raised limit
std::set<std::string> g_launched;  // kernels launched so far, by text
size_t g_unmatched = 0;  // the largest limit set through a name no launch used

// "(const void*)&ns::tile_kernel<64>" -> "ns::tile_kernel<64>": the first argument of the call,
// without casts, an address-of or spaces.
std::string kernel_of(const std::string& call) {
  std::string first;
  int depth = 0;
  for (char c : call) {
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c == ',' && depth == 0) break;
    first += c;
  }
  // A C-style cast in front ("(const void*)kernel"): the name is what follows it.
  if (size_t cast = first.rfind(')'); cast != std::string::npos && first.find('(') == first.find_first_not_of(" ") &&
                                      first.find_first_not_of(" )", cast) != std::string::npos)
    first = first.substr(cast + 1);
  std::string out;
  for (char c : first)
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '&') out += c;
  if (out.rfind("::", 0) == 0) out = out.substr(2);
  return out;
}

std::string bare(const std::string& kernel) {
  std::string s = kernel.substr(0, kernel.find('<'));
  if (s.rfind("::", 0) == 0) s = s.substr(2);
  return s;
}

}  // namespace

// (In parentheses: the header's macro of that name hands the lab's call here, and must not expand.)
cudaError_t(cudaFuncSetAttribute)(const char* call_text, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;  // a hint, kept by no one
  if (value < 0 || size_t(value) > cudalab_cpu::detail::kMaxDynamicSmemOptin) {
    cudalab_cpu::detail::set_last_error(cudaErrorInvalidValue);  // as the runtime: past the opt-in limit
    return cudaErrorInvalidValue;
  }
  const std::string kernel = kernel_of(call_text ? call_text : "");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_limits[kernel] = size_t(value);
  g_limits[bare(kernel)] = size_t(value);
  if (!g_launched.count(kernel) && !g_launched.count(bare(kernel))) g_unmatched = std::max(g_unmatched, size_t(value));
  return cudaSuccess;
}

namespace cudalab_cpu::detail {

size_t dynamic_smem_limit(const char* kernel_text) {
  const std::string kernel = kernel_of(kernel_text ? kernel_text : "");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_launched.insert(kernel);
  g_launched.insert(bare(kernel));
  auto at = g_limits.find(kernel);
  if (at == g_limits.end()) at = g_limits.find(bare(kernel));
  const size_t set = at != g_limits.end() ? at->second : 0;
  // A limit set under a name no launch has used may be this kernel's by another name.
  return std::max({kDefaultDynamicSmem, set, g_unmatched});
}

}  // namespace cudalab_cpu::detail
