#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "checker/judging/tolerance.h"

using namespace cudalab;

TEST_CASE("gamma grows with depth and matches d*u for small d") {
  CHECK(rounding_gamma(1) == doctest::Approx(kFloatUnitRoundoff).epsilon(1e-6));
  CHECK(rounding_gamma(10) > rounding_gamma(5));
}

TEST_CASE("sum depth is the tree depth plus the serial allowance") {
  CHECK(sum_depth(1) == kSerialAllowance);
  CHECK(sum_depth(1024) == 10 + kSerialAllowance);
  CHECK(sum_depth(1025) == 11 + kSerialAllowance);
}

TEST_CASE("sum tolerance admits a float tree sum but not a missing element") {
  // 4096 values near 1: a float pairwise sum is well inside; leaving one value out is not.
  const size_t n = 4096;
  double exact = 0;
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) exact += (v[i] = 0.5f + float(i % 97) / 97.0f);
  std::vector<float> tree = v;
  for (size_t s = 1; s < n; s *= 2)
    for (size_t i = 0; i + s < n; i += 2 * s) tree[i] += tree[i + s];
  double tol = sum_tolerance(n, exact);
  CHECK(within(exact, tree[0], tol));
  CHECK_FALSE(within(exact, tree[0] - v[7], tol));
}

TEST_CASE("within rejects NaN and infinities whatever the tolerance") {
  CHECK_FALSE(within(1.0, std::nan(""), 1e30));
  CHECK_FALSE(within(1.0, std::numeric_limits<double>::infinity(), 1e30));
  CHECK(within(1.0, 1.0, 0.0));
}

TEST_CASE("dot tolerance scales with K and the magnitudes") {
  CHECK(dot_tolerance(1000, 10.0) > dot_tolerance(10, 10.0));
  CHECK(dot_tolerance(1000, 20.0) == doctest::Approx(2 * dot_tolerance(1000, 10.0)));
}
