// A check's large random inputs, made on the checker's own GPU and lent to the runner: the
// runner maps the memory (wire/shared_device_memory.h) and hands it to the lab as the input
// buffer. The runner gets values, never a seed (lab_call.cpp says why), and no value crosses
// host memory: a 4 GiB input costs the GPU milliseconds, where made on the host and copied it
// cost seconds of memory bandwidth that every run on the machine shares.
//
// The GPU build only (checker/gpu/device_inputs.cu; CUDALAB_GPU_CHECKER): the CPU backend's
// checker sends every input as values in the shared memory.
#pragma once
#include <cstdint>
#include <memory>

#include "wire/protocol.h"
#include "wire/shared_device_memory.h"

namespace cudalab {

// From 64 MiB: below, values made on the host and copied take milliseconds, less than the
// checker's own CUDA context costs to make.
constexpr uint64_t kDeviceInputsFromBytes = uint64_t(64) << 20;

// Makes every Random buffer of `asked` of at least kDeviceInputsFromBytes in one allocation on
// the checker's GPU and marks it in `sent` as a Device fill at its offset there. Returns the
// memory (held until the call's reply), or nullptr, `sent` untouched, when there is nothing to
// make or this GPU cannot share memory (the caller then sends values).
std::unique_ptr<wire::SharedDeviceMemory> make_inputs_on_device(const wire::CallRequest& asked,
                                                                wire::CallRequest& sent);

}  // namespace cudalab
