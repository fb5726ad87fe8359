#include "checker/calls/device_inputs.h"

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "wire/fill_gpu.h"

namespace cudalab {

std::unique_ptr<wire::SharedDeviceMemory> make_inputs_on_device(const wire::CallRequest& asked,
                                                                wire::CallRequest& sent) {
  std::vector<size_t> chosen;
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  for (size_t i = 0; i < asked.buffers.size(); ++i) {
    const wire::BufferSpec& b = asked.buffers[i];
    const uint64_t bytes = b.count * wire::elem_size(b.type);
    if (b.fill.kind != wire::FillKind::Random || bytes < kDeviceInputsFromBytes) continue;
    total = (total + 255) & ~uint64_t(255);  // each buffer aligned as cudaMalloc's are
    chosen.push_back(i);
    offsets.push_back(total);
    total += bytes + wire::kGuardElements * 4;  // the runner writes the guards after the elements
  }
  if (chosen.empty()) return nullptr;
  std::string why;
  std::unique_ptr<wire::SharedDeviceMemory> memory = wire::SharedDeviceMemory::create(total, why);
  if (!memory) return nullptr;
  for (size_t k = 0; k < chosen.size(); ++k)
    wire::fill_on_device(memory->data() + offsets[k], asked.buffers[chosen[k]]);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  for (size_t k = 0; k < chosen.size(); ++k) {
    wire::BufferSpec& b = sent.buffers[chosen[k]];
    b.fill = wire::Fill{wire::FillKind::Device};
    b.device_offset = offsets[k];
  }
  return memory;
}

}  // namespace cudalab
