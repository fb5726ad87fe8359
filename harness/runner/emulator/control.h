// cudalab CPU backend: the emulator's controls, for the kernel runner and the emulator's own
// tests. NOT for lab code: harness/runner/emulator/include/ (what a lab file includes) declares none of
// this, and the link contract refuses a lab object that names any of it. What a lab file's
// compiled code legitimately references is listed in harness/runner/emulator/README.md ("What lab code
// calls").
//
// Even a lab file that declared these itself could not turn the race probe off: the runner
// sets the schedule the checker's request names and seals it before the lab's code runs
// (set_schedule refuses from then on, and the schedule's state sits on a read-only page).
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <cstdint>
#include <utility>
#include <vector>

namespace cudalab_cpu::control {

// ---- The schedule: the order blocks start in and threads start and resume in -------------
// "in-order", "reverse", or "random:SEED". Returns false (and leaves the mode) if unknown, or
// once the schedule is sealed. Also read from CUDALAB_SCHEDULE at start (programs without a
// kernel runner: the emulator's tests and fixtures; the runner overrides it per request).
bool set_schedule(const char* spec);
// From now on set_schedule refuses, for the rest of the process. The kernel runner seals the
// schedule of its first request before any lab code runs; a checker that wants another
// schedule starts another runner.
void seal_schedule();
bool schedule_sealed();
const char* schedule_name();
// Whether spec ("random:007", say) names the schedule in force.
bool schedule_is(const char* spec);

// ---- Workers ----------------------------------------------------------------------------
int worker_count();
// Sets how many host threads run blocks (0: back to CUDALAB_CPU_WORKERS or the hardware
// threads). Call it between launches, not from inside a kernel.
void set_worker_count(int n);

// ---- What the kernel runner reports ------------------------------------------------------
// The full text of the last kernel failure the emulator diagnosed ("" if none).
const char* last_failure();
// Called for every launch the emulator accepts (the kernel runner's launch record).
using LaunchObserver = void (*)(const char* kernel, dim3 grid, dim3 block, size_t dynamic_shared_bytes);
void set_launch_observer(LaunchObserver observer);
// Called for every copy from device memory to host memory, and every host-visible allocation
// (cudaMallocHost, cudaHostAlloc, cudaMallocManaged), with its bytes.
using HostDataObserver = void (*)(size_t bytes);
void set_host_data_observer(HostDataObserver observer);
// The emulator's warnings (barrier divergence, ...) since the last call; after a call with
// quiet_from_now, they are no longer printed to stderr (the runner puts them in the report).
std::vector<std::string> take_notes(bool quiet_from_now);

// ---- Device memory and the lab's host code -------------------------------------------------
// How messages name the device allocation that starts at p ("the input array (the 1st pointer
// argument of lab3::multilevel_sum)"); "" forgets the name. Allocations without one are the
// lab's own ("a 32-byte cudaMalloc allocation of yours").
void name_device_allocation(const void* p, const std::string& name);
// The allocation that starts at p holds an array of array_bytes; the rest is the harness's guard
// words. A kernel that reads them reads past the array's end: under CHECK=race that fails the
// launch, naming the array (a plain run cannot tell: the words are readable memory).
void mark_array_end(const void* p, size_t array_bytes);
// Runs fn(arg): the lab's host code. Meanwhile every device allocation (cudaMallocManaged's
// excepted) is inaccessible to host code (PROT_NONE), as device memory is to a CPU; kernels,
// cudaMemset and cudaMemcpy open what they touch while they run. Allocations made meanwhile
// (the lab's own) end exactly at an inaccessible page, so reading or writing one element past
// the end faults. When fn's code touches device memory, fn is abandoned (siglongjmp) and the
// return value says what happened ("your host code read device memory (the input array ...)");
// otherwise it returns "". Exceptions from fn pass through. Not reentrant; one thread at a time.
std::string run_host_code(void (*fn)(void*), void* arg);
// Whether [p, p + bytes) lies inside one device allocation (cudaMalloc's, not managed memory):
// the kernel runner's copy rules (runner/copy_check.h) ask it of every cudaMemcpy of the lab's.
bool is_device_memory(const void* p, size_t bytes);
// The memory whose protection only the emulator may change, and the one instruction it changes
// it from (arena.h): the kernel runner's system-call filter holds them. Reserves device memory's
// address range if no allocation has yet.
struct GuardedMemory {
  uintptr_t site = 0;  // the instruction after the emulator's `syscall`
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;  // [lo, hi)
};
GuardedMemory guarded_memory();
// Does now what the emulator would otherwise do lazily and the kernel runner's system-call
// filter then refuses (runner/syscall_filter.h): count the cores, read the program's symbol
// tables for the race detector's reports.
void prepare_for_lockdown();
// How many times device memory was opened and closed (mprotect calls) since the start.
unsigned long long protection_changes();

}  // namespace cudalab_cpu::control
