#include "cuda_errors.h"

#include "cudalab/launch_check.h"

namespace cudalab {

CudaFailure::CudaFailure(cudaError_t c, const std::string& message, Where w)
    : std::runtime_error(message), code(c), context_lost(is_sticky(c)), where(w) {}

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable: return true;
    default: return false;
  }
}

static std::string describe(cudaError_t e) {
  return std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
}

void require(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) throw CudaFailure(status, what + " failed: " + describe(status));
}

static bool g_sync_after_launch = true;
void set_sync_after_launch(bool on) { g_sync_after_launch = on; }
bool sync_after_launch() { return g_sync_after_launch; }

void check_call(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    CudaFailure f(status,
                  std::string(call) + " at " + file + ":" + std::to_string(line) + " failed: " + describe(status),
                  CudaFailure::Where::CudaCall);
    f.call = call ? call : "";
    f.file = file ? file : "";
    f.line = line;
    throw f;
  }
}

void check_launch(const char* kernel, const char* file, int line) {
  const std::string at = std::string(file) + ":" + std::to_string(line);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::string hint;
    if (e == cudaErrorInvalidConfiguration)
      hint =
          " (a block holds at most 1024 threads, the grid needs at least one block, gridDim.y and "
          "gridDim.z may be at most 65,535, and a block may not ask for more shared memory than the GPU has)";
    CudaFailure f(e, std::string("launching ") + kernel + " at " + at + " failed: " + describe(e) + hint,
                  CudaFailure::Where::Launch);
    f.kernel = kernel ? kernel : "";
    f.file = file ? file : "";
    f.line = line;
    throw f;
  }
  if (!g_sync_after_launch) return;
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    CudaFailure f(e, std::string("kernel ") + kernel + " (launched at " + at + ") failed while running: " + describe(e),
                  CudaFailure::Where::KernelRun);
    f.kernel = kernel ? kernel : "";
    f.file = file ? file : "";
    f.line = line;
    throw f;
  }
}

void finish_lab_call(const char* function) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    throw CudaFailure(e,
                      std::string(function) + " failed: " + describe(e) +
                          " (add CUDALAB_CHECK_LAUNCH(\"name\") after each launch to find which kernel)",
                      CudaFailure::Where::LabCall);
}

}  // namespace cudalab
