// Tolerances derived from stated floating-point error bounds (Higham, "Accuracy and
// Stability of Numerical Algorithms", ch. 3-4): a float computation whose longest chain
// of roundings has length d satisfies |computed - exact| <= rounding_gamma(d) * (sum of |terms|),
// rounding_gamma(d) = d u / (1 - d u), u = 2^-24 for float.
#pragma once
#include <cstddef>

namespace cudalab {

constexpr double kFloatUnitRoundoff = 1.0 / 16777216.0;  // 2^-24

double rounding_gamma(double d);

// Depth of a summation of n terms as we bound it: ceil(log2 n) levels of a tree plus
// kSerialAllowance additions that a thread may do in sequence before the tree starts
// (grid-stride loops, several loads per thread).
constexpr double kSerialAllowance = 64;
double sum_depth(size_t n);

// Tolerance for a float sum of n terms whose absolute values add up to abs_sum.
double sum_tolerance(size_t n, double abs_sum);

// Tolerance for one element of a float matrix product: a dot product of length k whose
// |a_i||b_i| add up to abs_dot. Any order of summation, FMA or not, stays inside it.
double dot_tolerance(size_t k, double abs_dot);

// Does `got` lie within tol of expected? NaN and infinities never do.
bool within(double expected, double got, double tol);

}  // namespace cudalab
