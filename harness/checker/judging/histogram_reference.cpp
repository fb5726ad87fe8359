#include "histogram_reference.h"

#include <mutex>

#include "fill_reference.h"
#include "wire/fill.h"
#include "wire/parallel.h"

namespace cudalab {

ByteHistogram histogram_serial(const std::vector<uint8_t>& bytes) {
  // Four sub-histograms, so that a run of equal bytes does not wait on one counter's
  // store-to-load chain: the serial CPU baseline should be a fair one.
  std::array<ByteHistogram, 4> sub{};
  const size_t n = bytes.size(), n4 = n / 4 * 4;
  for (size_t i = 0; i < n4; i += 4) {
    ++sub[0][bytes[i]];
    ++sub[1][bytes[i + 1]];
    ++sub[2][bytes[i + 2]];
    ++sub[3][bytes[i + 3]];
  }
  for (size_t i = n4; i < n; ++i) ++sub[0][bytes[i]];
  ByteHistogram h{};
  for (const auto& s : sub)
    for (size_t b = 0; b < 256; ++b) h[b] += s[b];
  return h;
}

ByteHistogram histogram_reference(const std::vector<uint8_t>& bytes) {
  ByteHistogram total{};
  std::mutex m;
  parallel_for(bytes.size(), [&](size_t begin, size_t end) {
    ByteHistogram h{};
    for (size_t i = begin; i < end; ++i) ++h[bytes[i]];
    std::lock_guard<std::mutex> lock(m);
    for (size_t b = 0; b < 256; ++b) total[b] += h[b];
  });
  return total;
}

ByteHistogram histogram_of_fill(size_t n, const wire::Fill& fill) {
  ByteHistogram total{};
#ifdef CUDALAB_GPU_CHECKER
  // The largest checks' references on the checker's GPU (fill_reference.h); the host otherwise.
  if (n >= kDeviceReferenceFrom && device_histogram_of_fill(n, fill, total)) return total;
#endif
  std::mutex m;
  const uint64_t key = wire::fill_key(fill);
  parallel_for(n, [&](size_t begin, size_t end) {
    ByteHistogram h{};
    for (size_t i = begin; i < end; ++i) ++h[wire::random_byte(fill, key, i, n)];
    std::lock_guard<std::mutex> lock(m);
    for (size_t b = 0; b < 256; ++b) total[b] += h[b];
  });
  return total;
}

}  // namespace cudalab
