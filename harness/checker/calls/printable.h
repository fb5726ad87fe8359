// Text that came from the kernel runner (a source file name, a sanitizer's report) is the
// student's code talking: the checker shows it as printable ASCII only, and bounded.
#pragma once
#include <cstddef>
#include <string>

namespace cudalab {

inline std::string printable(const std::string& s, size_t max = std::string::npos) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max) break;
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

}  // namespace cudalab
