// cudalab CPU backend: the emulator's own race detector (CHECK=race; issues 18 and 22).
//
// Lab code is compiled with -fsanitize=thread, which makes the compiler call __tsan_read4,
// __tsan_atomic32_fetch_add, ... around every memory access; race.cpp defines those hooks
// itself (no libtsan; the table of hooks is tsan_hooks.h, the profile build's too). It keeps a shadow word per 4 bytes of memory a kernel touches (the last
// write and a read since it: which CUDA thread, which line, whether atomic, the block's clock)
// and reports two accesses to the same memory by different CUDA threads, at least one a
// write, not both atomic, with nothing between them that orders them:
//   * in one block: a __syncthreads() (or, for lanes of one warp, a warp operation; or both
//     accesses volatile ones in lockstep, which the emulator reports as a note of its own);
//   * between blocks (global memory): a __threadfence() followed by an atomic in one block, and
//     an atomic on the same address in the other before its access (the "last block" pattern).
// The emulator tells it where a CUDA thread runs and when barriers and warp operations pass.
// Not for lab code: nothing under harness/runner/emulator/include declares it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalab_cpu::race {

// One CUDA thread of the block a worker runs, as the detector sees it.
struct Thread {
  uint32_t tid = 0;
  uintptr_t stack_lo = 0;  // its fiber's stack: private, never tracked
  size_t stack_bytes = 0;
  const volatile void* turn = nullptr;  // the volatile access its lockstep turn was for
  bool fence = false;  // a __threadfence() not yet followed by an atomic
};
// The CUDA thread running on this worker, nullptr while emulator or host code runs.
extern thread_local Thread* t_current;

// Reads now what reports need from the program's file (debug lines, the symbol table): the
// kernel runner opens no file once its system calls are limited (control::prepare_for_lockdown).
void prepare_reports();

// A launch: grid and block sizes name blocks and threads in reports.
void launch_begin(unsigned grid_x, unsigned grid_y, unsigned block_x, unsigned block_y, unsigned block_z);
// The launch is over: the reports it made, as notes ("cudalab: note: data race on ... at
// FILE:LINE (kind) and FILE:LINE (kind): ..."), at most a few, each pair of lines once.
// kernel_text names the kernel and its launch.
std::vector<std::string> launch_end(const std::string& kernel_text);
// A worker starts block `linear` with `threads` threads and its dynamic shared memory.
void block_begin(uint64_t linear, unsigned threads, const void* smem, size_t smem_bytes);
// Thread tid of the running block now runs on the stack [lo, lo + bytes).
void run_thread(unsigned tid, const void* stack_lo, size_t stack_bytes);
// A __syncthreads() of the running block released its threads.
void barrier();
// A warp operation (__syncwarp, a shuffle, a vote) completed for the lanes of `warp`.
void warp_sync(unsigned warp);

}  // namespace cudalab_cpu::race
