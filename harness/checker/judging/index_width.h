// A grid-stride index too narrow for the lab's sizes, found in the lab file's code. Lab 6 counts
// up to 2^32 - 1 bytes, and its past_2_31 check (2 GiB) is too large for the CPU backend (measured:
// 40 s of CPU and 2.1 GB for the solution alone on the 2-core test machine), which left an `int`
// index passing there and failing on a GPU (issue 18). The checker reads the file instead: an
// index declared 32 bits wide from blockIdx, stepped with +=, and compared with a size_t.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace cudalab {

struct NarrowIndex {
  std::string name;  // "i"
  std::string type;  // "int", "unsigned"
  size_t line = 0;  // where it is declared
  bool is_signed = false;
};

// The first such index in `code` (comments already blanked: code_without_comments), if any.
std::optional<NarrowIndex> narrow_grid_stride_index(const std::string& code);

// "your index i (line 12, an int) wraps past 2^31: use size_t"; the sentence for a finding.
std::string narrow_index_words(const NarrowIndex& x, const std::string& file);

}  // namespace cudalab
