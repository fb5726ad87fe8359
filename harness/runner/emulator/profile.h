// cudalab CPU backend: the profile build's counters (PROFILE=1; issue 31).
//
// Lab code is compiled with -fsanitize=thread, as for CHECK=race, which makes the compiler call
// __tsan_read4, __tsan_write16, __tsan_atomic32_fetch_add, ... at every memory access; profile.cpp
// defines those hooks (race.cpp does in the race build: one build has one set; both through the
// one table in tsan_hooks.h). It groups the
// accesses of a warp's lanes into warp requests, as a GPU's load/store unit would: the same
// instruction (the hook's caller), between the same two __syncthreads(), the k-th time each lane
// executes it. Per request it counts what a GPU would do: global memory's 32-byte sectors against
// the fewest that could hold the bytes, shared memory's wavefronts (32 banks of 4 bytes) against
// the fewest, how many lanes of the warp took part, atomics. Per kernel it sums them by source line.
//
// Only a sample of each launch's blocks is counted (all of a small grid, then evenly spaced ones):
// the figures are ratios per request, and the counts are scaled by blocks / sampled.
// The emulator hands the sums to the kernel runner as notes ("cudalab: profile ..."), once per
// call of the lab (take_notes); the checker reads them as untrusted numbers, for advice only.
// Not for lab code: nothing under harness/runner/emulator/include declares it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalab_cpu::profile {

// A launch starts: its block count decides which blocks are sampled. host_frame: the launch's
// kernel body on the host's stack, beside the copies of the kernel's arguments every thread reads
// (what a GPU keeps in its constant bank, not memory traffic: not counted).
void launch_begin(uint64_t blocks, unsigned threads_per_block, const void* host_frame);
// The launch is over: its counts join its kernel's (by launch site) until take_notes.
void launch_end(const char* kernel, const char* file, int line, unsigned grid_blocks_x, unsigned grid_blocks_y,
                unsigned grid_blocks_z, unsigned threads_per_block, size_t dynamic_smem);
// A worker starts block `linear`, whose dynamic shared memory is [smem, smem + bytes).
void block_begin(uint64_t linear, unsigned threads, const void* smem, size_t smem_bytes);
// The worker's block has finished (every thread ran to its end, or it was abandoned).
void block_end();
// Thread tid of the running block now runs on the stack [lo, lo + bytes); tid < 0: none does.
void run_thread(int tid, const void* stack_lo, size_t stack_bytes);
// A __syncthreads() of the running block released its threads.
void barrier();
// The kernels' sums since the last call, as note lines, and emptied.
std::vector<std::string> take_notes();
// Reads the program's debug lines now (the kernel runner opens no file later).
void prepare_reports();

}  // namespace cudalab_cpu::profile
