// The runner's CPU-backend pieces: fills (device memory is host memory, so the host fills it
// directly) and a flush that has nothing to do.
#include <cstring>

#include "device_buffers.h"
#include "fill.h"
#include "parallel.h"

namespace cudalab::run {

void fill_random(void* p, const wire::BufferSpec& b) {
  const wire::Fill f = b.fill;
  const uint64_t n = b.count;
  const uint64_t key = wire::fill_key(f);
  parallel_for(n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      switch (b.type) {
        case wire::ElemType::F32: static_cast<float*>(p)[i] = wire::random_value(f, key, i, n); break;
        case wire::ElemType::U32: static_cast<uint32_t*>(p)[i] = wire::random_integer(f, key, i, n, 0xFFFFFFFFu); break;
        case wire::ElemType::I32: static_cast<int32_t*>(p)[i] = int32_t(wire::random_integer(f, key, i, n, 0x7FFFFFFFu)); break;
        case wire::ElemType::U8: static_cast<uint8_t*>(p)[i] = uint8_t(wire::random_integer(f, key, i, n, 255)); break;
      }
    }
  });
}

void flush_l2_cache() {}

}  // namespace cudalab::run
