#include "index_width.h"

#include <algorithm>
#include <regex>

namespace cudalab {

namespace {

bool has_word(const std::string& code, const std::string& pattern) {
  return std::regex_search(code, std::regex(pattern));
}

}  // namespace

// The names whose initializer reads blockIdx, of any type ("tid" in `int tid = blockIdx.x * ...`):
// an index that starts from one of them starts from blockIdx too (`for (int i = tid; ...)`).
static std::string from_block_index(const std::string& code) {
  static const std::regex decl(R"(\b([A-Za-z_]\w*)\s*=\s*[^;,=]*\bblockIdx\b)");
  std::string names = "blockIdx";
  for (auto it = std::sregex_iterator(code.begin(), code.end(), decl); it != std::sregex_iterator(); ++it)
    names += "|" + (*it)[1].str();
  return names;
}

std::optional<NarrowIndex> narrow_grid_stride_index(const std::string& code) {
  // A 32-bit declaration whose initializer reads blockIdx, itself or through a name made from it:
  // the grid-stride loop's start.
  const std::regex decl(
      R"(\b(int|signed|int32_t|unsigned(?:\s+int)?|uint32_t|uint)\s+([A-Za-z_]\w*)\s*=\s*([^;,]*\b(?:)" +
      from_block_index(code) + R"()\b[^;,]*))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), decl); it != std::sregex_iterator(); ++it) {
    const std::string type = (*it)[1], name = (*it)[2];
    // Stepped (+= or = name + ...) and compared with something declared size_t (the lab's n):
    // an index that only numbers threads, or counts uint4s up to n / 16, is left alone.
    const bool stepped =
        has_word(code, "\\b" + name + "\\s*\\+=") || has_word(code, "\\b" + name + "\\s*=\\s*" + name + "\\s*\\+");
    std::smatch cmp;
    const std::regex compared("\\b" + name + "\\s*<=?\\s*([A-Za-z_]\\w*)\\s*[;)]");
    if (!stepped || !std::regex_search(code, cmp, compared)) continue;
    // The bound is 64 bits wide however the kernel spells it (the lab passes a size_t).
    if (!has_word(code, "\\b(?:size_t|uint64_t|int64_t|ptrdiff_t|long)\\s+(?:const\\s+)?" + cmp[1].str() + "\\b"))
      continue;
    NarrowIndex x;
    x.name = name;
    x.type = type;
    x.line = size_t(std::count(code.begin(), code.begin() + it->position(0), '\n')) + 1;
    x.is_signed = type == "int" || type == "signed" || type == "int32_t";
    return x;
  }
  return std::nullopt;
}

std::string narrow_index_words(const NarrowIndex& x, const std::string& file) {
  const std::string where = "your index " + x.name + " (" + file + ":" + std::to_string(x.line) + ", " +
                            (x.type == "int" ? "an int" : "a " + x.type) + ")";
  if (x.is_signed)
    return where + " wraps past 2^31: at 2^31 - 1 the next " + x.name +
           " += stride overflows, and the bytes past it are never counted. Use size_t";
  return where + " wraps past 2^32: n may be up to 2^32 - 1, and near it " + x.name +
         " += stride wraps around to the start. Use size_t";
}

}  // namespace cudalab
