// The host's share of the largest checks, timed in isolation: how long the checker itself spends
// making each reference (and, for the transpose, comparing), apart from the GPU, the runner and
// the build. Built against the CPU backend's checker library, so it times the host paths; in the
// GPU build the sum and histogram references of 2^24 values or more run on the checker's GPU
// instead (checker/judging/fill_reference.h). `make bench-references`; the figures depend on the cores.
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "checker/calls/lab_call.h"
#include "checker/judging/diagnose.h"
#include "checker/judging/histogram_reference.h"
#include "checker/judging/matrix_reference.h"
#include "checker/judging/sum_reference.h"
#include "checker/judging/topk_reference.h"
#include "wire/parallel.h"

using namespace cudalab;

namespace {

void timed(const std::string& what, const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("  %-66s %8.3f s\n", what.c_str(), s);
  std::fflush(stdout);
}

// Lab 4's timed_size check, as lab4_checks.cpp computes it: the input, the expected transpose,
// the exact comparison (with a right answer: the pass path every solution takes).
void transpose_check(size_t rows, size_t cols) {
  std::vector<float> input;
  timed("lab 4 10000 x 10000: the input on the host", [&] { input = matrix_input(rows, cols, 7, 1, 1.0f, 2.0f); });
  std::vector<double> expected(rows * cols);
  timed("lab 4 10000 x 10000: the expected transpose, one loop (before)", [&] {
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) expected[c * rows + r] = input[r * cols + c];
  });
  timed("lab 4 10000 x 10000: the expected transpose, transpose_reference",
        [&] { expected = transpose_reference(input, rows, cols); });
  std::vector<float> got(expected.begin(), expected.end());
  OutputLayout layout;
  layout.rows = cols;
  layout.cols = rows;
  timed("lab 4 10000 x 10000: compare_outputs, every element right",
        [&] { compare_outputs(expected, got, nullptr, layout); });
}

}  // namespace

int main() {
  std::printf("host references of the largest checks, %u host threads\n", host_threads());
  timed("lab 3 n = 2^30: sum_reference of the fill", [] { sum_reference(size_t(1) << 30, sum_fill(7)); });
  timed("lab 3 n = 2^27 + 1: sum_reference of the fill", [] { sum_reference((size_t(1) << 27) + 1, sum_fill(7)); });
  timed("lab 6 n = 2^31 + 3: histogram_of_fill",
        [] { histogram_of_fill((size_t(1) << 31) + 3, wire::uniform_fill(7, 6, 0.0f, 256.0f)); });
  timed("lab 6 n = 2^28 + 5: histogram_of_fill",
        [] { histogram_of_fill((size_t(1) << 28) + 5, wire::uniform_fill(7, 6, 0.0f, 256.0f)); });
  transpose_check(10000, 10000);
  std::vector<float> a, b;
  timed("lab 5 4096^3: A and B on the host", [&] {
    a = matrix_input(4096, 4096, 7, 1, -1.0f, 1.0f);
    b = matrix_input(4096, 4096, 7, 2, -1.0f, 1.0f);
  });
  timed("lab 5 4096^3: product_reference of 24 sampled rows",
        [&] { product_reference(a, b, 4096, 4096, 4096, sample_rows(4096, 32, 24, 7)); });
  std::vector<float> values;
  timed("lab 8 n = 2^26 + 3: the values on the host",
        [&] { values = make_input<float>((size_t(1) << 26) + 3, wire::uniform_fill(7, 8, -1000.0f, 1000.0f)); });
  timed("lab 8 n = 2^26 + 3: top_k_reference, k = 256", [&] { top_k_reference(values, 256); });
  // Lab 8's timed check of one call: k = 64 of 2^26 values of the call's fill.
  const wire::Fill timed_fill = wire::uniform_fill(9, 8, -1000.0f, 1000.0f);
  timed("lab 8 timed check, 64 of 2^26: the values, then top_k_reference (before)",
        [&] { top_k_reference(make_input<float>(size_t(1) << 26, timed_fill), 64); });
  timed("lab 8 timed check, 64 of 2^26: top_k_of_fill on the host (the GPU's in its build)",
        [&] { top_k_of_fill(size_t(1) << 26, timed_fill, 64); });
  return 0;
}
