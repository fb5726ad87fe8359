#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "checker/judging/matrix_reference.h"

using namespace cudalab;

// transpose_reference cuts the matrix into bands and tiles for speed: whatever the cut, every
// element must land where a plain loop puts it.
TEST_CASE("transpose_reference matches the plain transpose on shapes that cut tiles and bands short") {
  for (const auto [rows, cols] : {std::pair<size_t, size_t>{1, 1}, {1, 5000}, {5000, 1}, {33, 31}, {77, 3001},
                                  {3001, 77}, {1000, 1000}}) {
    const std::vector<float> in = matrix_input(rows, cols, 19, 1, 1.0f, 2.0f);
    const std::vector<double> got = transpose_reference(in, rows, cols);
    REQUIRE(got.size() == rows * cols);
    size_t wrong = 0;
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) wrong += got[c * rows + r] != double(in[r * cols + c]);
    CHECK_MESSAGE(wrong == 0, rows << " x " << cols);
  }
}
