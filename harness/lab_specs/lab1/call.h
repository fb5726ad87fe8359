// Lab 1's call, said once: block_sums(d_data, d_block_sums, n). The checker builds its requests
// from it (checks.cpp, timing.cpp); the runner unpacks them by it (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab1_call {

enum Buffer : size_t { kData, kBlockSums };
enum Scalar : size_t { kN };
inline constexpr wire::BufferParam kBuffers[] = {
    {"the input array", wire::ElemType::F32},  // d_data: the naive tree sums in place
    {"d_block_sums", wire::ElemType::F32},  // one partial sum per block
};
inline constexpr const char* kScalars[] = {"n"};
inline constexpr wire::LabSignature kCall{1, "lab1::block_sums", kBuffers, kScalars};

}  // namespace cudalab::lab1_call
