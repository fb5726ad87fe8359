// cudalab CPU backend: what the emulator and the runtime shim share (not for lab code).
#pragma once
#include <cuda_runtime.h>

#include <string>

namespace cudalab_cpu::detail {
// The error cudaGetLastError / cudaPeekAtLastError return (a bad launch configuration, say).
void set_last_error(cudaError_t e);
// A failure found while a kernel ran: returned by the next synchronizing call, as on a GPU.
void set_pending_error(cudaError_t e, const std::string& text);
// If addr lies in the guard region around a cudaMalloc allocation, writes where it lies
// ("12 bytes past the end of a 4000-byte cudaMalloc allocation") and returns true. For the
// fault handler: it never blocks.
bool describe_device_address(const void* addr, char* text, size_t size);
}  // namespace cudalab_cpu::detail
