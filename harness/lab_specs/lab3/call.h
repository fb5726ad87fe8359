// Lab 3's call, said once: multilevel_sum(d_in, d_scratch, d_sum, n). The checker builds its
// requests from it (checks.cpp, timing.cpp); the runner unpacks them by it (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab3_call {

enum Buffer : size_t { kIn, kScratch, kSum };
enum Scalar : size_t { kN };
inline constexpr wire::BufferParam kBuffers[] = {
    {"the input array", wire::ElemType::F32},
    {"d_scratch", wire::ElemType::F32},  // lab3::scratch_elements(n) floats
    {"d_sum", wire::ElemType::F32},
};
inline constexpr const char* kScalars[] = {"n"};
inline constexpr wire::LabSignature kCall{3, "lab3::multilevel_sum", kBuffers, kScalars};

}  // namespace cudalab::lab3_call
