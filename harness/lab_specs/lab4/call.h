// Lab 4's call, said once: transpose(d_in, d_out, rows, cols). The checker builds its requests
// from it (checks.cpp, timing.cpp); the runner unpacks them by it (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab4_call {

enum Buffer : size_t { kIn, kOut };
enum Scalar : size_t { kRows, kCols };
inline constexpr wire::BufferParam kBuffers[] = {
    {"the input matrix", wire::ElemType::F32},  // rows x cols
    {"d_out", wire::ElemType::F32},  // cols x rows
};
inline constexpr const char* kScalars[] = {"rows", "cols"};
inline constexpr wire::LabSignature kCall{4, "lab4::transpose", kBuffers, kScalars};

}  // namespace cudalab::lab4_call
