#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "checker/calls/lab_call.h"
#include "checker/judging/matrix_reference.h"

using namespace cudalab;

// transpose_reference cuts the matrix into bands and tiles for speed: whatever the cut, every
// element must land where a plain loop puts it.
TEST_CASE("transpose_reference matches the plain transpose on shapes that cut tiles and bands short") {
  for (const auto& [rows, cols] :
       {std::pair<size_t, size_t>{1, 1}, {1, 5000}, {5000, 1}, {33, 31}, {77, 3001}, {3001, 77}, {1000, 1000}}) {
    const std::vector<float> in = matrix_input(rows, cols, 19, 1, 1.0f, 2.0f);
    const std::vector<double> got = transpose_reference(in, rows, cols);
    REQUIRE(got.size() == rows * cols);
    size_t wrong = 0;
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) wrong += got[c * rows + r] != double(in[r * cols + c]);
    CHECK_MESSAGE(wrong == 0, rows << " x " << cols);
  }
}

// The timed calls' checks on drawn elements (LabCall::sampled_output): right samples pass, one
// wrong value at a drawn index fails and is named, and no sample at all is no pass.
namespace {

wire::Fill fill_on(uint64_t stream, float lo, float hi) {
  wire::Fill f;
  f.kind = wire::FillKind::Random;
  f.seed = 23;
  f.stream = stream;
  f.lo = lo;
  f.hi = hi;
  return f;
}

}  // namespace

TEST_CASE("check_transpose_samples: right samples pass, a wrong one at a drawn index fails") {
  const size_t rows = 37, cols = 53;
  const wire::Fill f = fill_on(1, 1.0f, 2.0f);
  const std::vector<double> out = transpose_reference(matrix_input(rows, cols, 23, 1, 1.0f, 2.0f), rows, cols);
  std::vector<OutputSample> samples;
  for (uint64_t i : {uint64_t(rows * cols - 1), uint64_t(0), uint64_t(40), uint64_t(1000)})
    samples.push_back({i, float(out[i])});
  CHECK(check_transpose_samples(samples, f, rows, cols) == "");
  samples[2].value += 1.0f;  // element 40 of the output: column 1, row 3 of the input
  CHECK(check_transpose_samples(samples, f, rows, cols).rfind("element [1][3] of the output is", 0) == 0);
  CHECK(check_transpose_samples({}, f, rows, cols) != "");
}

TEST_CASE("check_product_samples: right samples pass, one off by more than the tolerance fails") {
  const size_t M = 9, N = 7, K = 13;
  const wire::Fill fa = fill_on(1, -1.0f, 1.0f), fb = fill_on(2, -1.0f, 1.0f);
  const std::vector<float> a = matrix_input(M, K, 23, 1, -1.0f, 1.0f), b = matrix_input(K, N, 23, 2, -1.0f, 1.0f);
  const ProductRows c = product_reference(a, b, M, N, K, all_rows(M));
  std::vector<OutputSample> samples;
  for (uint64_t i : {uint64_t(M * N - 1), uint64_t(0), uint64_t(30)}) samples.push_back({i, float(c.value[i])});
  CHECK(check_product_samples(samples, fa, fb, M, N, K) == "");
  samples[2].value += 0.5f;  // C[4][2]
  CHECK(check_product_samples(samples, fa, fb, M, N, K).rfind("C[4][2] is", 0) == 0);
  CHECK(check_product_samples({}, fa, fb, M, N, K) != "");
}
