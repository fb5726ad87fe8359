// Lab 6's call, said once: histogram(d_in, d_hist, n). The checker builds its requests from it
// (checks.cpp, timing.cpp); the runner unpacks them by it (runner_entry.cpp).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::lab6_call {

enum Buffer : size_t { kIn, kHist };
enum Scalar : size_t { kN };
inline constexpr wire::BufferParam kBuffers[] = {
    {"the input array", wire::ElemType::U8},  // n bytes
    {"d_hist", wire::ElemType::U32},  // lab6::kBins counts
};
inline constexpr const char* kScalars[] = {"n"};
inline constexpr wire::LabSignature kCall{6, "lab6::histogram", kBuffers, kScalars};

}  // namespace cudalab::lab6_call
