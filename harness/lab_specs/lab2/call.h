// Lab 2's call, said once: shared_sum(d_in, d_block_sums, d_sum, n). The checker builds its
// requests from it (checks.cpp, timing.cpp); the runner unpacks them by it (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab2_call {

enum Buffer : size_t { kIn, kBlockSums, kSum };
// kCalls, the timing's only: that many calls over consecutive slices of n elements (one slice
// fits in the L2 cache, so DRAM is timed over many); absent, one call.
enum Scalar : size_t { kN, kCalls };
inline constexpr wire::BufferParam kBuffers[] = {
    {"the input array", wire::ElemType::F32},
    {"d_block_sums", wire::ElemType::F32},
    {"d_sum", wire::ElemType::F32},
};
inline constexpr const char* kScalars[] = {"n", "calls"};
inline constexpr wire::LabSignature kCall{2, "lab2::shared_sum", kBuffers, kScalars};

}  // namespace cudalab::lab2_call
