// Lab 9's call, said once: sgemm(d_A, d_B, d_C, M, N, K), laid out as lab 5's matmul (the same
// buffers and scalars, in the same order: lab5/call.h). The checker builds its requests from it
// (checks.cpp, timing.cpp, and checker/judging/product_check, which lab 5 shares); the runner
// unpacks them by it (runner_entry.cpp).
#pragma once
#include "lab_specs/lab5/call.h"
#include "wire/lab_signature.h"

namespace cudalab::lab9_call {

using namespace lab5_call;  // the buffers kA, kB, kC and the scalars kM, kN, kK
inline constexpr wire::LabSignature kCall{9, "lab9::sgemm", lab5_call::kBuffers, lab5_call::kScalars};

}  // namespace cudalab::lab9_call
