// Lab 8's references: the first k of a fill made without an array of its values (top_k_of_fill,
// lab 8's timed check) must be the first k of those values, ties to the lower index included;
// top_k_matches is the exact place-by-place pass.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "wire/fill.h"
#include "checker/judging/topk_reference.h"

using namespace cudalab;

namespace {

wire::Fill fill_of(uint64_t seed, float lo, float hi, float power) {
  wire::Fill f;
  f.kind = wire::FillKind::Random;
  f.seed = seed;
  f.stream = 8;
  f.lo = lo;
  f.hi = hi;
  f.power = power;
  return f;
}

std::vector<float> values_of(size_t n, const wire::Fill& f) {
  std::vector<float> v(n);
  const uint64_t key = wire::fill_key(f);
  for (size_t i = 0; i < n; ++i) v[i] = wire::random_value(f, key, i, n);
  return v;
}

bool same(const std::vector<TopKEntry>& a, const std::vector<TopKEntry>& b) {
  if (a.size() != b.size()) return false;
  for (size_t p = 0; p < a.size(); ++p)
    if (a[p].index != b[p].index || a[p].value != b[p].value) return false;
  return true;
}

}  // namespace

TEST_CASE("top_k_of_fill is the first k of the fill's values, ties to the lower index") {
  // Uniform values as lab 8 draws them, and skewed ones (u^8 of a narrow range: many ties at the top).
  for (const wire::Fill& f :
       {fill_of(3, -1000.0f, 1000.0f, 1), fill_of(4, 0.0f, 1.0f, 8), fill_of(5, 1.0f, 1.001f, 1)}) {
    const size_t n = 300007;
    const std::vector<float> values = values_of(n, f);
    for (size_t k : {size_t(1), size_t(64), size_t(256)}) {
      const std::vector<TopKEntry> want = top_k_reference(values, k);
      CHECK_MESSAGE(same(top_k_of_fill(n, f, k), want), "k = " << k << ", power " << f.power);
    }
  }
  // The third fill ties: its first 256 hold equal values at more than one index.
  const std::vector<TopKEntry> tied = top_k_of_fill(300007, fill_of(5, 1.0f, 1.001f, 1), 256);
  bool tie = false;
  for (size_t p = 1; p < tied.size(); ++p)
    tie |= tied[p].value == tied[p - 1].value && tied[p].index > tied[p - 1].index;
  CHECK(tie);
}

TEST_CASE("top_k_matches: exact places, values bit for bit") {
  const std::vector<TopKEntry> expected = {{5.0f, 7}, {0.0f, 2}, {0.0f, 3}};
  CHECK(top_k_matches(expected, {5.0f, 0.0f, 0.0f}, {7, 2, 3}));
  CHECK_FALSE(top_k_matches(expected, {5.0f, 0.0f, 0.0f}, {7, 3, 2}));  // a tie the wrong way
  CHECK_FALSE(top_k_matches(expected, {5.0f, -0.0f, 0.0f}, {7, 2, 3}));  // -0.0 is not element 2's bits
  CHECK_FALSE(top_k_matches(expected, {5.0f, 0.0f}, {7, 2}));  // a place short
}
