#include "stats.h"

#include <algorithm>
#include <stdexcept>

namespace cudalab {

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of no values");
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double relative_spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  double med = median(v);
  return med == 0 ? 0 : (*hi - *lo) / med;
}

}  // namespace cudalab
