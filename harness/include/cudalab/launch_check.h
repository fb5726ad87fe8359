// Checks for CUDA calls and kernel launches in lab code.
//
//   CUDALAB_CHECK(cudaMalloc(&p, bytes));      // any runtime call
//   my_kernel<<<grid, block>>>(...);
//   CUDALAB_CHECK_LAUNCH("my_kernel");         // right after every launch
//
// A failure stops the check that is running and reports the kernel's name,
// your file and line, and CUDA's own message. While the harness runs its
// correctness checks, CUDALAB_CHECK_LAUNCH also waits for the kernel to finish,
// so that a fault inside it (an illegal address, say) is blamed on the right
// kernel; while it times your code it does not wait, so timings stay honest.
#pragma once
// The checker reads the lab contracts (labN.h) for their constants only; it has no CUDA and
// never calls a lab's function (CUDALAB_CONTRACT_ONLY, set by its build).
#ifndef CUDALAB_CONTRACT_ONLY
#include <cuda_runtime.h>

namespace cudalab {
const char* note_source_file(const char* path);
void check_call(cudaError_t status, const char* call, const char* file, int line);
void check_launch(const char* kernel, const char* file, int line);
}  // namespace cudalab

#define CUDALAB_CHECK(call) ::cudalab::check_call((call), #call, __FILE__, __LINE__)
#define CUDALAB_CHECK_LAUNCH(kernel_name) ::cudalab::check_launch((kernel_name), __FILE__, __LINE__)

// The build names the lab file it compiles, so the report can say which one ran.
#ifdef CUDALAB_SOURCE_FILE
[[maybe_unused]] static const char* const cudalab_source_file_ = ::cudalab::note_source_file(CUDALAB_SOURCE_FILE);
#endif
#endif  // CUDALAB_CONTRACT_ONLY
