#include "matrix_reference.h"

#include <algorithm>
#include <cmath>

#include "diagnose.h"
#include "tolerance.h"
#include "checker/calls/lab_call.h"
#include "wire/fill.h"
#include "wire/parallel.h"

namespace cudalab {

// The same bits the kernel runner makes from this seed (a Random fill, wire/fill.h): the
// reference is computed from exactly the input the student's code received.
std::vector<float> matrix_input(size_t rows, size_t cols, uint64_t seed, uint64_t stream, float lo, float hi) {
  std::vector<float> m(rows * cols);
  wire::fill_host(m.data(), wire::uniform_fill(seed, stream, lo, hi), m.size());
  return m;
}

std::string tile_block_name(size_t row, size_t col, size_t tile) { return tile_block_name(row, col, tile, tile); }

std::string tile_block_name(size_t row, size_t col, size_t tile_rows, size_t tile_cols) {
  return "block (" + std::to_string(col / tile_cols) + ", " + std::to_string(row / tile_rows) + ")";
}

std::vector<double> transpose_reference(const std::vector<float>& in, size_t rows, size_t cols) {
  constexpr size_t T = 32;
  std::vector<double> out(rows * cols);
  // Bands of 32 input rows on every core, tile by tile within a band, as cpu_transpose does.
  parallel_for((rows + T - 1) / T,
               [&](size_t band0, size_t band1) {
                 for (size_t r0 = band0 * T; r0 < std::min(rows, band1 * T); r0 += T)
                   for (size_t c0 = 0; c0 < cols; c0 += T) {
                     const size_t r1 = std::min(rows, r0 + T), c1 = std::min(cols, c0 + T);
                     for (size_t r = r0; r < r1; ++r)
                       for (size_t c = c0; c < c1; ++c) out[c * rows + r] = in[r * cols + c];
                   }
               },
               8);
  return out;
}

void cpu_transpose(const float* in, float* out, size_t rows, size_t cols) {
  constexpr size_t T = 32;  // a 32 x 32 tile of each matrix fits in L1 with room to spare
  for (size_t r0 = 0; r0 < rows; r0 += T)
    for (size_t c0 = 0; c0 < cols; c0 += T) {
      const size_t r1 = std::min(rows, r0 + T), c1 = std::min(cols, c0 + T);
      for (size_t r = r0; r < r1; ++r)
        for (size_t c = c0; c < c1; ++c) out[c * rows + r] = in[r * cols + c];
    }
}

std::vector<size_t> all_rows(size_t M) {
  std::vector<size_t> rows(M);
  for (size_t i = 0; i < M; ++i) rows[i] = i;
  return rows;
}

std::vector<size_t> sample_rows(size_t M, size_t tile, size_t count, uint64_t seed) {
  std::vector<size_t> rows;
  auto add = [&](size_t r) {
    if (r < M && std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
  };
  // Where tiled kernels go wrong: the edges of the first tile, of the last full tile,
  // and of the partial tile after it.
  const size_t full = M - M % tile;
  // (full - 1 and M - 2 wrap around for tiny M: add() drops them, being >= M.)
  for (size_t r : {size_t(0), size_t(1), tile - 1, tile, full - 1, full, M - 2, M - 1}) add(r);
  for (uint64_t i = 0; rows.size() < std::min(count, M) && i < 64 * count; ++i)
    add(size_t(mix64(seed ^ (0x5EED0000ull + i)) % M));
  std::sort(rows.begin(), rows.end());
  return rows;
}

ProductRows product_reference(const std::vector<float>& A, const std::vector<float>& B, size_t M, size_t N, size_t K,
                              std::vector<size_t> rows) {
  (void)M;
  ProductRows p;
  p.rows = std::move(rows);
  p.value.assign(p.rows.size() * N, 0.0);
  p.abs_dot.assign(p.rows.size() * N, 0.0);
  // Give each thread at least about a million multiply-adds, so tiny products run inline.
  const size_t per_row = std::max<size_t>(1, N * K);
  const size_t min_rows = std::max<size_t>(1, (size_t(1) << 20) / per_row);
  parallel_for(
      p.rows.size(),
      [&](size_t begin, size_t end) {
        for (size_t r = begin; r < end; ++r) {
          const float* a = &A[p.rows[r] * K];
          double* v = &p.value[r * N];
          double* s = &p.abs_dot[r * N];
          // i-k-j order: row k of B is read contiguously, and the loop over j vectorizes.
          for (size_t k = 0; k < K; ++k) {
            const double aik = a[k], abs_aik = std::fabs(aik);
            const float* b = &B[k * N];
            for (size_t j = 0; j < N; ++j) {
              v[j] += aik * double(b[j]);
              s[j] += abs_aik * std::fabs(double(b[j]));
            }
          }
        }
      },
      min_rows);
  return p;
}

void cpu_matmul_rows(const float* A, const float* B, float* C, size_t N, size_t K, size_t row_begin, size_t row_end) {
  for (size_t i = row_begin; i < row_end; ++i) {
    float* c = C + i * N;
    std::fill(c, c + N, 0.0f);
    for (size_t k = 0; k < K; ++k) {
      const float aik = A[i * K + k];
      const float* b = B + k * N;
      for (size_t j = 0; j < N; ++j) c[j] += aik * b[j];
    }
  }
}

std::string check_transpose_samples(const std::vector<OutputSample>& samples, const wire::Fill& in, size_t rows,
                                    size_t cols) {
  if (samples.empty()) return "no element of the output came back to be checked";
  const size_t n = rows * cols;
  const uint64_t key = wire::fill_key(in);
  for (const OutputSample& s : samples) {
    const size_t c = size_t(s.index) / rows, r = size_t(s.index) % rows;  // out[c][r] = in[r][c]
    const float want = wire::random_value(in, key, r * cols + c, n);
    if (!(s.value == want))
      return "element [" + with_commas(c) + "][" + with_commas(r) + "] of the output is " + std::to_string(s.value) +
             ", expected " + std::to_string(want);
  }
  return "";
}

std::string check_product_samples(const std::vector<OutputSample>& samples, const wire::Fill& a, const wire::Fill& b,
                                  size_t M, size_t N, size_t K) {
  if (samples.empty()) return "no element of C came back to be checked";
  const uint64_t ka = wire::fill_key(a), kb = wire::fill_key(b);
  for (const OutputSample& s : samples) {
    const size_t r = size_t(s.index) / N, col = size_t(s.index) % N;
    double dot = 0, abs_dot = 0;
    for (size_t q = 0; q < K; ++q) {
      const double p =
          double(wire::random_value(a, ka, r * K + q, M * K)) * double(wire::random_value(b, kb, q * N + col, K * N));
      dot += p;
      abs_dot += std::fabs(p);
    }
    if (!within(dot, s.value, dot_tolerance(K, abs_dot)))
      return "C[" + with_commas(r) + "][" + with_commas(col) + "] is " + std::to_string(s.value) + ", expected " +
             std::to_string(dot);
  }
  return "";
}

}  // namespace cudalab
