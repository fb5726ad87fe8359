// The baseline runner's calls (build/cuda/baselines/labN-runner, entry.cpp), said once for both
// sides: the checker's timing builds its requests from them (checker/gpu/sum_baselines.cpp) and the
// baseline runner unpacks them by them. Labs 4, 5, 6, 8 and 9 compare on the student's own call
// (lab_specs/labN/call.h); the sum labs (1, 2, 3, 7) on a call of their own, the input and its sum.
// Every baseline call ends with one more scalar, past the call's own: the kernel to run
// (checker/timing/baseline_timing.h, BaselineSession::time).
#pragma once
#include "wire/lab_signature.h"

namespace cudalab::baseline_call {

enum SumBuffer : size_t { kSumIn, kSumOut };
enum SumScalar : size_t { kSumN };
inline constexpr wire::BufferParam kSumBuffers[] = {
    {"the input array", wire::ElemType::F32},  // the call's own fresh input: the naive tree consumes it
    {"the sum", wire::ElemType::F32},
};
inline constexpr const char* kSumScalars[] = {"n"};
constexpr wire::LabSignature sum_call(int lab) { return {lab, "the harness's sum", kSumBuffers, kSumScalars}; }

}  // namespace cudalab::baseline_call
