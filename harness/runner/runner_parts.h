// The kernel runner's pieces that runner_main.cpp ties together.
#pragma once
#include <functional>

#include "lab_entry.h"
#include "wire/protocol.h"

namespace cudalab::run {

const char* backend_name();  // "cuda" or "cpu"
wire::DeviceInfo query_device();  // device_info.cpp
unsigned host_thread_count();  // threads of this process now (runner_main.cpp)
// Runs body, the call of the lab's host function for request q. On the CPU backend
// (runner_cpu.cpp) under the schedule q names (sealed: the lab's code cannot change it), with
// device memory closed to host code: a host access to it fails the call as an illegal address
// (CudaFailure) saying which buffer. On a GPU (runner_gpu.cu) it just runs body.
void run_lab_host_code(const wire::CallRequest& q, const EntryArgs& args, const std::function<void()>& body);

}  // namespace cudalab::run
