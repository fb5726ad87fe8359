// A Random fill (protocol.h) made on the GPU: the same bits as fill.h makes on the host.
#pragma once
#include "protocol.h"

namespace cudalab::wire {
// Fills b.count elements of b.type at device pointer p (asynchronously, default stream).
void fill_on_device(void* p, const BufferSpec& b);
}  // namespace cudalab::wire
