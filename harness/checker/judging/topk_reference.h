// CPU reference for lab 8: the first k elements in lab 8's order (harness/include/cudalab/lab8.h):
// a larger value first; equal values (float equality: -0.0 == +0.0), the lower index first.
// Inputs never hold NaN.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "checker/types/suite.h"
#include "wire/protocol.h"

namespace cudalab {

struct TopKEntry {
  float value = 0;
  int32_t index = 0;
};

inline bool comes_before(float v, int32_t i, float w, int32_t j) { return v > w || (v == w && i < j); }

// The first k of values in the order (k <= values.size()), using every core for large inputs.
std::vector<TopKEntry> top_k_reference(const std::vector<float>& values, size_t k);

// One CPU core (a bounded heap, one pass): the "one CPU core" row of lab 8's timing.
std::vector<TopKEntry> top_k_serial(const std::vector<float>& values, size_t k);

// The first k of the n values a Random float fill makes (protocol.h), without an array of them:
// on the checker's GPU from 2^24 values (fill_reference.h), else each core makes its share of the
// values and keeps its own first k. Lab 8's timed calls are checked against it.
std::vector<TopKEntry> top_k_of_fill(size_t n, const wire::Fill& fill, size_t k);

// Whether the answer is exactly `expected`, place by place (value bits and index): the pass that
// needs no input values (judge_top_k says what is wrong otherwise).
bool top_k_matches(const std::vector<TopKEntry>& expected, const std::vector<float>& got_values,
                   const std::vector<int32_t>& got_indices);

// The place (0-based) of element `index` in the whole order: how many elements come before
// it. For explaining a missing element ("the 3rd largest"); O(n).
size_t place_of(const std::vector<float>& values, int32_t index);

// Lab 8's verdict: got_values[r] and got_indices[r] against expected[r] for every place r,
// exactly (the value must be d_values[index], bit for bit), and what a wrong answer means:
// never written, an index out of range, a value that is not its index's, an element counted
// twice, elements missing (or a tie given to the higher index), the right ones out of order.
CheckResult judge_top_k(const std::vector<float>& values, const std::vector<TopKEntry>& expected,
                        const std::vector<float>& got_values, const std::vector<int32_t>& got_indices);

}  // namespace cudalab
