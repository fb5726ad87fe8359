// The random bits behind a Random fill's elements, for host and device alike: each function
// returns a uniform draw in [0, 1) that is exact in float (an integer below 2^24 times a power
// of two), so no rounding mode can make the two sides differ.
#pragma once
#include <cstdint>

#include "random.h"

namespace cudalab::wire {

// Element i of a fill of 4-byte elements: 24 bits of a hash of its own.
CUDALAB_HOST_DEVICE inline float word_unit(uint64_t key, uint64_t i) {
  return float(mix64(key + i) >> 40) * (1.0f / 16777216.0f);
}

// Element i of a byte fill: 16 bits of a hash it shares with the three elements beside it
// (elements 4j .. 4j+3 take hash j, lowest bits first). 16 bits are plenty for a value below 256,
// and a byte fill (lab 6: 256 MiB a call, every timed call with inputs of its own) then hashes a
// quarter as often: the hash, not the memory, bounded the runner's byte fills.
CUDALAB_HOST_DEVICE inline float byte_unit_of(uint64_t bits, uint64_t i) {
  return float(uint32_t(bits >> (16 * (i & 3))) & 0xFFFFu) * (1.0f / 65536.0f);
}
CUDALAB_HOST_DEVICE inline uint64_t byte_hash(uint64_t key, uint64_t i) { return mix64(key + (i >> 2)); }
CUDALAB_HOST_DEVICE inline float byte_unit(uint64_t key, uint64_t i) { return byte_unit_of(byte_hash(key, i), i); }

}  // namespace cudalab::wire
