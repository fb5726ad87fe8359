// Summary statistics of repeated timings.
#pragma once
#include <vector>

namespace cudalab {
double median(std::vector<double> values);  // of a non-empty set; throws otherwise
double relative_spread(const std::vector<double>&);  // (max - min) / median
}  // namespace cudalab
