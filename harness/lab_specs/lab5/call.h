// Lab 5's call, said once: matmul(d_A, d_B, d_C, M, N, K). The checker builds its requests from
// it (checks.cpp, timing.cpp, and checker/judging/product_check, which lab 9 shares); the runner
// unpacks them by it (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab5_call {

enum Buffer : size_t { kA, kB, kC };
enum Scalar : size_t { kM, kN, kK };
inline constexpr wire::BufferParam kBuffers[] = {
    {"A", wire::ElemType::F32},  // M x K
    {"B", wire::ElemType::F32},  // K x N
    {"d_C", wire::ElemType::F32},  // M x N
};
inline constexpr const char* kScalars[] = {"M", "N", "K"};
inline constexpr wire::LabSignature kCall{5, "lab5::matmul", kBuffers, kScalars};

}  // namespace cudalab::lab5_call
