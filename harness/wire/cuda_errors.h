// CUDA error handling for the harness and for lab code (through launch_check.h).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cudalab {

// A failed CUDA call or launch. what() is a complete sentence for a student's own terminal;
// the other fields say the same as data, which is all the checker repeats (protocol.h: Failure).
struct CudaFailure : std::runtime_error {
  enum class Where : uint8_t { Runner = 1, CudaCall = 2, Launch = 3, KernelRun = 4, LabCall = 5 };  // = wire::Cause
  cudaError_t code;
  bool context_lost;  // the error is sticky: nothing more can run in this process
  Where where = Where::Runner;
  std::string call, kernel, file;  // CudaCall: the call as written; Launch/KernelRun: the kernel's name
  int line = 0;
  CudaFailure(cudaError_t c, const std::string& message, Where w = Where::Runner);
};

// Errors after which the CUDA context is unusable (the process must restart).
bool is_sticky(cudaError_t e);

// Throws CudaFailure naming `what` when status is not cudaSuccess.
void require(cudaError_t status, const std::string& what);

// While true (the correctness checks), CUDALAB_CHECK_LAUNCH synchronizes after each launch
// so that a fault is blamed on its own kernel. The timing turns it off.
void set_sync_after_launch(bool on);
bool sync_after_launch();

// Runs a lab's host function (which launches kernels), then waits for the GPU.
// Any CUDA error becomes a CudaFailure that names `function`.
template <class F>
void call_lab_function(const char* function, F&& body);

void finish_lab_call(const char* function);  // synchronize and translate errors

template <class F>
void call_lab_function(const char* function, F&& body) {
  // A stale error from earlier work must not be blamed on this call.
  cudaGetLastError();
  body();
  finish_lab_call(function);
}

}  // namespace cudalab
