// Numbers as the report writes them: every layer's sentences use these, so they sit with the
// types at the bottom (a sentence about a buffer's size needs no judging code).
#pragma once
#include <cstddef>
#include <string>

namespace cudalab {

// Formats 1234567 as "1,234,567".
std::string with_commas(size_t v);
// "1 place", "5 places", "1,024 places": a count and its noun, singular or plural.
std::string count_of(size_t n, const std::string& one, const std::string& many);

}  // namespace cudalab
