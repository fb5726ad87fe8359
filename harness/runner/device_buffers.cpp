#include "device_buffers.h"

#include <cuda_runtime.h>

#include <string>

#include "copy_check.h"
#include "lab_entry.h"
#include "wire/cuda_errors.h"

namespace cudalab::run {

static uint64_t data_bytes(const wire::BufferSpec& b) { return b.count * wire::elem_size(b.type); }

void DeviceBuffers::release() {
  for (void* p : ptrs_) cudaFree(p);
  ptrs_.clear();
  bytes_.clear();
}

void DeviceBuffers::prepare(const wire::CallRequest& q, const uint8_t* shm, bool synchronize) {
  bool same = ptrs_.size() == q.buffers.size();
  for (size_t i = 0; same && i < q.buffers.size(); ++i) same = bytes_[i] == data_bytes(q.buffers[i]);
  if (!same) {
    release();
    for (const auto& b : q.buffers) {
      void* p = nullptr;
      const uint64_t bytes = data_bytes(b) + wire::kGuardElements * 4;
      cudaError_t e = cudaMalloc(&p, bytes);
      if (e != cudaSuccess) {
        cudaGetLastError();
        throw CudaFailure(e, "could not allocate " + b.name + " (" + std::to_string(bytes >> 20) +
                                 " MiB) on the GPU: " + cudaGetErrorString(e) + "; try a smaller --size");
      }
      ptrs_.push_back(p);
      bytes_.push_back(data_bytes(b));
    }
  }
  for (size_t i = 0; i < q.buffers.size(); ++i) {
    const auto& b = q.buffers[i];
    uint8_t* p = static_cast<uint8_t*>(ptrs_[i]);
    switch (b.fill.kind) {
      case wire::FillKind::Poison:
        require(__real_cudaMemset(p, 0xFF, data_bytes(b)), "poisoning " + b.name);
        break;
      case wire::FillKind::Data:
        require(__real_cudaMemcpy(p, shm + b.slot_offset, data_bytes(b), cudaMemcpyHostToDevice), "copying " + b.name);
        break;
      case wire::FillKind::Random:
        fill_random(p, b);
        break;
    }
    write_guards(p + data_bytes(b), b.guard_salt);
  }
  if (synchronize) require(cudaDeviceSynchronize(), "preparing the inputs");
}

void DeviceBuffers::write_back(const wire::CallRequest& q, uint8_t* shm, bool outputs,
                               const std::vector<std::vector<uint64_t>>& drawn) const {
  size_t sampled = 0;
  for (size_t i = 0; i < q.buffers.size(); ++i) {
    const auto& b = q.buffers[i];
    const uint8_t* p = static_cast<const uint8_t*>(ptrs_[i]);
    uint8_t* slot = shm + b.slot_offset;
    if (b.return_data && outputs && b.samples) {
      if (sampled == drawn.size()) throw BadRequest("no elements were drawn from the sampled output " + b.name);
      gather_elements(p, wire::elem_size(b.type), drawn[sampled++], slot);
    } else if (b.return_data && outputs) {
      require(__real_cudaMemcpy(slot, p, data_bytes(b), cudaMemcpyDeviceToHost), "copying " + b.name + " back");
    }
    uint8_t* guard_slot = slot + wire::slot_data_bytes(b);
    require(__real_cudaMemcpy(guard_slot, p + data_bytes(b), wire::kGuardElements * 4, cudaMemcpyDeviceToHost),
            "reading the guards of " + b.name);
  }
}

}  // namespace cudalab::run
