#include <doctest/doctest.h>

#include <stdexcept>

#include "checker/timing/stats.h"
#include "wire/random.h"

using namespace cudalab;

TEST_CASE("median of odd and even counts, unsorted input") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK_THROWS_AS(median({}), std::invalid_argument);
}

TEST_CASE("relative spread") {
  CHECK(relative_spread({1, 1, 1}) == 0);
  CHECK(relative_spread({0.9, 1.0, 1.1}) == doctest::Approx(0.2));
}

TEST_CASE("inputs are reproducible from the seed and differ between seeds") {
  std::vector<float> a(1 << 18), b(1 << 18), c(1 << 18);
  fill_uniform(a, 42, 1, 0.5f, 1.5f);
  fill_uniform(b, 42, 1, 0.5f, 1.5f);
  fill_uniform(c, 43, 1, 0.5f, 1.5f);
  CHECK(a == b);
  CHECK(a != c);
  for (float v : a) {
    REQUIRE(v >= 0.5f);
    REQUIRE(v < 1.5f);
  }
  CHECK(derive_seed(1, "a") != derive_seed(1, "b"));
  CHECK(derive_seed(1, "a") == derive_seed(1, "a"));
}
