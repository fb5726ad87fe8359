// Turns a submitted file into the text that gets compiled, or says why it cannot be:
// binaries and oversized files are refused; a byte-order mark, CRLF line ends, UTF-16 and
// Latin-1 are converted, each with a note to the student.
#pragma once
#include <string>
#include <vector>

namespace grading {

struct SourceText {
  bool ok = false;
  std::string text;  // UTF-8, LF line ends
  std::string problem;  // why it cannot be graded (student-facing), when !ok
  std::vector<std::string> notes;  // conversions made
};

SourceText normalize_source(const std::string& bytes, size_t max_bytes = 1 << 20);

}  // namespace grading
