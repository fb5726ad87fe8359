// Hashes and secrets: a file's SHA-256, random bytes from the kernel (the verdict channel's
// secret, temporary names nobody can guess).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace grading {

std::string sha256_hex(std::string_view bytes);
// n random bytes from the kernel, as 2n lowercase hex digits.
std::string random_hex(size_t n);
uint64_t random_u64();

}  // namespace grading
