// Lab 7's call, said once: atomic_sum(d_in, d_sum, n). The checker builds its requests from it
// (checks.cpp, timing.cpp); the runner unpacks them by it (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab7_call {

enum Buffer : size_t { kIn, kSum };
enum Scalar : size_t { kN };
inline constexpr wire::BufferParam kBuffers[] = {
    {"the input array", wire::ElemType::F32},
    {"d_sum", wire::ElemType::F32},
};
inline constexpr const char* kScalars[] = {"n"};
inline constexpr wire::LabSignature kCall{7, "lab7::atomic_sum", kBuffers, kScalars};

}  // namespace cudalab::lab7_call
