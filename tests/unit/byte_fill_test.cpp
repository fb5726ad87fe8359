// Byte fills (lab 6's inputs) share one hash among four bytes (wire/fill_bits.h). What must still
// hold: each byte is the host's one definition whichever way it is made, the four bytes of a
// hash are four draws (not one repeated), and the bytes are as even as the fill asks.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <vector>

#include "wire/fill.h"

using namespace cudalab;

namespace {

wire::Fill byte_fill(uint64_t seed, float power) {
  wire::Fill f = wire::uniform_fill(seed, 6, 0.0f, 256.0f);
  f.power = power;
  return f;
}

}  // namespace

TEST_CASE("a byte fill's four bytes of one hash are four different draws") {
  const wire::Fill f = byte_fill(2026, 1);
  const uint64_t key = wire::fill_key(f);
  const size_t n = 1 << 16;
  size_t groups_all_equal = 0;
  for (size_t g = 0; g < n / 4; ++g) {
    const uint8_t a = wire::random_byte(f, key, 4 * g, n);
    bool same = true;
    for (size_t k = 1; k < 4; ++k) same &= wire::random_byte(f, key, 4 * g + k, n) == a;
    groups_all_equal += same;
  }
  // Four independent uniform bytes agree with probability 256^-3: none of 16,384 groups should.
  CHECK(groups_all_equal == 0);
}

TEST_CASE("a uniform byte fill is even over its 256 values, and fill_host makes the same bytes") {
  const wire::Fill f = byte_fill(7, 1);
  const size_t n = size_t(1) << 22;
  std::vector<uint8_t> bytes(n);
  wire::fill_host(bytes.data(), f, n);
  const uint64_t key = wire::fill_key(f);
  std::array<double, 256> count{};
  for (size_t i = 0; i < n; ++i) {
    if (i % 4099 == 0) REQUIRE(bytes[i] == wire::random_byte(f, key, i, n));
    ++count[bytes[i]];
  }
  double chi2 = 0;
  const double expected = double(n) / 256;
  for (double c : count) chi2 += (c - expected) * (c - expected) / expected;
  // 255 degrees of freedom: the mean is 255, the standard deviation about 22.6; 400 is 6 sigma.
  CHECK(chi2 < 400);
}

TEST_CASE("a skewed byte fill keeps its skew: value^power with 16 bits a draw") {
  const wire::Fill f = byte_fill(11, 4);
  const uint64_t key = wire::fill_key(f);
  const size_t n = size_t(1) << 20;
  size_t below_16 = 0;
  for (size_t i = 0; i < n; ++i) below_16 += wire::random_byte(f, key, i, n) < 16;
  // P(256 u^4 < 16) = P(u < 0.5) = 1/2.
  CHECK(std::abs(double(below_16) / n - 0.5) < 0.01);
}
