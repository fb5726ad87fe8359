// cudalab CPU backend: what the emulator and the runtime shim share (not for lab code).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudalab_cpu::detail {
// The error cudaGetLastError / cudaPeekAtLastError return (a bad launch configuration, say).
void set_last_error(cudaError_t e);
// A failure found while a kernel ran: returned by the next synchronizing call, as on a GPU.
void set_pending_error(cudaError_t e, const std::string& text);
// The kernel failure that broke the "device" (cudaSuccess: none): pending, or already reported
// and sticky. Launches are refused from then on, as on a GPU whose context is lost.
cudaError_t device_failure();
// If addr lies in the guard region around a cudaMalloc allocation, writes where it lies
// ("12 bytes past the end of a 4000-byte cudaMalloc allocation") and returns true. For the
// fault handler: it never blocks.
bool describe_device_address(const void* addr, char* text, size_t size);
// If addr lies in a device allocation or its guard regions, writes what it is ("the input
// array (...): byte 8 of its 4000", "12 bytes past the end of a 32-byte cudaMalloc allocation
// of yours") and returns true. For the fault handler, on a fault in host code: never blocks.
bool describe_host_access(const void* addr, char* text, size_t size);

// Device memory as host code sees it. While closed (the lab's host code runs: run_host_code),
// every device allocation is PROT_NONE except while a kernel that touched it runs
// (kernels_begin, open_for_kernel, kernels_end) or the runtime's own copy or fill touches it.
void close_device_memory(bool closed);
bool device_memory_closed();
void kernels_begin();
// For the fault handler, on a fault inside a kernel at addr: 1 if addr lies in the pages of an
// allocation closed to host code, which is now open until the launch ends (retry the access);
// -1 if that cannot be told now (retry); 0 if not (an illegal address). Never blocks.
int open_for_kernel(const void* addr);
// Ends a launch's access. Returns "" or where a kernel wrote into the unmapped-but-inaccessible
// slack around one of the lab's own allocations ("4 bytes past the end of a 20-byte cudaMalloc
// allocation of yours"), which it then poisons again.
std::string kernels_end();
// The dynamic shared memory a launch of `kernel` (its launch's text: "tile_kernel<64>") may ask
// for: 48 KiB, or what cudaFuncSetAttribute raised it to (func_attributes.cpp).
size_t dynamic_smem_limit(const char* kernel);
// What no block may ask for at all, whatever the attribute: an H100's opt-in limit, 227 KiB.
constexpr size_t kMaxDynamicSmemOptin = 227 * 1024;
constexpr size_t kDefaultDynamicSmem = 48 * 1024;
// Where the runner's arrays end inside their allocations (control::mark_array_end): for each,
// [the array's end, the end of its pages), the harness's guard words. The race build's reads
// there fail the launch (race.cpp).
std::vector<std::pair<uintptr_t, uintptr_t>> past_array_ends();
// "4 bytes past the end of the input A (...)" for an address in one of those ranges, else "".
std::string describe_past_array_end(const void* addr);
// Stops the CUDA thread running on this worker, as a fault would: the launch fails with `code`
// and "cudalab: KERNEL: thread T of block B " + what, and the thread never runs again. Returns
// (doing nothing) only when no CUDA thread runs here: the lab's host code.
void stop_running_thread(cudaError_t code, const std::string& what);
[[noreturn]] void unsupported(const char* feature, const char* file, int line);
}  // namespace cudalab_cpu::detail
