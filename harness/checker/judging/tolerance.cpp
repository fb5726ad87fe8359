#include "tolerance.h"

#include <cmath>

namespace cudalab {

double rounding_gamma(double d) {
  double du = d * kFloatUnitRoundoff;
  return du / (1.0 - du);
}

double sum_depth(size_t n) {
  double levels = n <= 1 ? 0 : std::ceil(std::log2(double(n)));
  return levels + kSerialAllowance;
}

double sum_tolerance(size_t n, double abs_sum) {
  // The final float result is itself rounded once more: one extra unit of depth.
  return rounding_gamma(sum_depth(n) + 1) * abs_sum;
}

double dot_tolerance(size_t k, double abs_dot) { return rounding_gamma(double(k) + 1) * abs_dot; }

bool within(double expected, double got, double tol) {
  if (!std::isfinite(got)) return false;
  return std::fabs(got - expected) <= tol;
}

}  // namespace cudalab
