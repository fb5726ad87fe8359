#include "number_words.h"

namespace cudalab {

std::string with_commas(size_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

std::string count_of(size_t n, const std::string& one, const std::string& many) {
  return with_commas(n) + " " + (n == 1 ? one : many);
}

}  // namespace cudalab
