// Inputs and CPU references shared by the sum labs (1, 2, 3).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire/protocol.h"

namespace cudalab {

// Inputs of every sum check: uniform in [0.5, 1.5), except the last element, uniform in
// [2^15, 3 * 2^15). Positive on purpose: the prefix sums then rise, so a wrong sum can be
// explained ("equals the first m elements"). The large last element is the one a level
// boundary bug leaves out (n = B^2 + 1 needs a third level for it alone), and at 2^30
// elements the rounding tolerance (thousands) would hide a missing element of size 1.
std::vector<float> sum_input(size_t n, uint64_t seed);
// The same input as the kernel runner makes it from the seed (lab_call.h).
wire::Fill sum_fill(uint64_t seed);

struct SumReference {
  double sum = 0;  // exact enough: double accumulation, in parallel
  double abs_sum = 0;  // sum of |x|, for the tolerance
};
SumReference sum_reference(const std::vector<float>& x);
// The same for a Random fill of n elements, made on the fly (no n-element vector: the
// largest checks' inputs are 4 GiB).
SumReference sum_reference(size_t n, const wire::Fill& fill);
// The sum of elements [begin, end) of a Random fill of n elements, made on the fly.
SumReference range_sum_reference(size_t n, const wire::Fill& fill, size_t begin, size_t end);

// Sums of consecutive blocks of `block` elements (the last may be partial), in double.
struct BlockSums {
  std::vector<double> sums, abs_sums;
  std::vector<size_t> lengths;
};
BlockSums block_sums_reference(const std::vector<float>& x, size_t block);

// prefix[k] = x[0] + ... + x[k-1], size n + 1; for explaining wrong sums (check_sum).
// Returns an empty vector above max_n to bound the memory it takes.
std::vector<double> prefix_sums(const std::vector<float>& x, size_t max_n = size_t(1) << 27);

// One CPU core, serial double accumulation: the "one CPU core" row of the sum timings.
double serial_sum(const std::vector<float>& x);

}  // namespace cudalab
