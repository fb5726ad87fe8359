// The kernel runner's pieces that runner_main.cpp ties together.
#pragma once
#include "protocol.h"

namespace cudalab::run {

const char* backend_name();        // "cuda" or "cpu"
wire::DeviceInfo query_device();   // device_info.cpp
unsigned host_thread_count();      // threads of this process now (runner_main.cpp)

}  // namespace cudalab::run
