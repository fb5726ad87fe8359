// Lab 8's call, said once:
// top_k(d_values, d_scratch_values, d_scratch_indices, d_top_values, d_top_indices, n, k).
// The checker builds its requests from it (checks.cpp, timing.cpp); the runner unpacks them by it
// (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab8_call {

enum Buffer : size_t { kValues, kScratchValues, kScratchIndices, kTopValues, kTopIndices };
enum Scalar : size_t { kN, kK };
inline constexpr wire::BufferParam kBuffers[] = {
    {"d_values", wire::ElemType::F32},
    {"d_scratch_values", wire::ElemType::F32},  // lab8::scratch_elements(n, k)
    {"d_scratch_indices", wire::ElemType::I32},  // as many
    {"d_top_values", wire::ElemType::F32},  // k
    {"d_top_indices", wire::ElemType::I32},  // k
};
inline constexpr const char* kScalars[] = {"n", "k"};
inline constexpr wire::LabSignature kCall{8, "lab8::top_k", kBuffers, kScalars};

}  // namespace cudalab::lab8_call
