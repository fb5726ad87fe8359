// The lab's copies and fills, checked where they happen. Every kernel runner is linked with
// `--wrap` for cudaMemcpy, cudaMemcpyAsync, cudaMemset and cudaMemsetAsync (mk/copy_wrap.mk):
// a lab file's call of one reaches __wrap_cudaMemcpy here, whatever the file wrote (a macro, a
// function pointer taken by name), and the runtime's own function only through it.
//   * between two device allocations (cudaMemcpyDeviceToDevice or cudaMemcpyDefault): done,
//     and counted;
//   * any other (to or from host memory; a fill of host memory): refused, not done. The call
//     returns cudaErrorNotPermitted and the lab's code goes on; the reply says which call and
//     which way (wire::CallReply::refused_copy), and the checker puts it in words. A result
//     the lab's host code meant to make from the data is then wrong, and the checks say so.
// In a lab the harness moves every input and output; copying inside the GPU is the student's
// business (a multi-pass sum, a sort that ping-pongs between buffers).
//
// The runner's own copies (the inputs to the device, the outputs back) call the runtime's
// functions directly (__real_cudaMemcpy, ...), which a lab file cannot name (the link contract).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "wire/protocol.h"

extern "C" {
cudaError_t __real_cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t __real_cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s);
cudaError_t __real_cudaMemset(void* p, int value, size_t bytes);
cudaError_t __real_cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t s);
}

namespace cudalab::run {

using RefusedCopy = wire::RefusedCopy;  // which call, which way

// The first copy refused since the last call, and forgets it.
std::optional<RefusedCopy> take_refused_copy();
// Bytes copied between device allocations by the lab's code since the last call, and resets.
uint64_t take_device_copy_bytes();

// Whether [p, p + bytes) lies in one device allocation: runner_gpu.cu (the runtime's pointer
// attributes) and runner_cpu.cpp (the emulator's allocations).
bool is_device_memory(const void* p, size_t bytes);

}  // namespace cudalab::run
