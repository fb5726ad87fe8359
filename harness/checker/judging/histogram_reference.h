// CPU reference for lab 6: a 256-bin histogram of bytes.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "checker/types/suite.h"
#include "wire/protocol.h"

namespace cudalab {

using ByteHistogram = std::array<uint64_t, 256>;

// Counts bytes[i] by value, using every core for large inputs.
ByteHistogram histogram_reference(const std::vector<uint8_t>& bytes);

// The same for a Random fill of n bytes, made on the fly (no n-byte vector): the timed
// repetitions' check, one fresh input each.
ByteHistogram histogram_of_fill(size_t n, const wire::Fill& fill);

// One CPU core: the "one CPU core" row of lab 6's timing.
ByteHistogram histogram_serial(const std::vector<uint8_t>& bytes);

// Lab 6's verdict on 256 counts for n bytes: exact, with what the pattern of wrong bins means
// (never written, never cleared, bytes counted twice or lost). Defined in lab_specs/lab6/checks.cpp.
// partial_clear = false leaves out "bins ... were never set to 0" (a second run disproved it).
CheckResult compare_histogram(const ByteHistogram& expected, const std::vector<uint32_t>& got, size_t n,
                              bool partial_clear = true);

}  // namespace cudalab
