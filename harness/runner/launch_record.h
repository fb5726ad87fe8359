// The kernel runner's record of what the lab's code launched: kernel name, grid, block,
// dynamic shared memory. Recording is on only while the lab's entry point runs, so the
// runner's own kernels (fills, the L2 flush) never appear. On the CPU backend the emulator
// reports each launch; on a GPU the runner stands in front of the CUDA runtime's launch
// entry points (launch_record_gpu.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "wire/protocol.h"

namespace cudalab::run {

void launch_record_start();  // clears the record and starts recording
void launch_record_stop();
std::vector<wire::Launch> launch_record_take(uint64_t& total);
void record_launch(const char* kernel, const unsigned grid[3], const unsigned block[3], uint64_t shared_bytes);
// GPU data made reachable from the host while recording (protocol.h: CallReply::bytes_to_host).
void record_bytes_to_host(uint64_t bytes);
uint64_t launch_record_bytes_to_host();
// Launches one kernel of the runner's own while recording: true when the record saw it.
bool launch_record_self_test();

}  // namespace cudalab::run
