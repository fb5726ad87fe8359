#include "device_buffers.h"

#include <cuda_runtime.h>

#include <string>

#include "copy_check.h"
#include "lab_entry.h"
#include "wire/cuda_errors.h"

namespace cudalab::run {

static uint64_t data_bytes(const wire::BufferSpec& b) { return b.count * wire::elem_size(b.type); }

void DeviceBuffers::release() {
  for (size_t i = 0; i < ptrs_.size(); ++i)
    if (!lent_[i]) cudaFree(ptrs_[i]);
  ptrs_.clear();
  bytes_.clear();
  lent_.clear();
}

// Where a Device fill's elements and guards lie in the checker's memory: inside it, or the
// request is refused (the runner never reads past what was mapped).
static void* lent_place(const wire::BufferSpec& b, const wire::SharedDeviceMemory* lent) {
  const uint64_t need = data_bytes(b) + wire::kGuardElements * 4;
  if (!lent) throw InputsNotMapped("no device memory came with the call for " + b.name);
  if (b.device_offset > lent->bytes() || need > lent->bytes() - b.device_offset || b.device_offset % 256)
    throw BadRequest(b.name + " lies outside the device memory the checker lent");
  return lent->data() + b.device_offset;
}

// Every buffer's memory: the last call's where the shapes match and nothing is lent, else new.
void DeviceBuffers::allocate(const wire::CallRequest& q, const wire::SharedDeviceMemory* lent) {
  bool same = ptrs_.size() == q.buffers.size();
  for (size_t i = 0; same && i < q.buffers.size(); ++i)
    same = bytes_[i] == data_bytes(q.buffers[i]) && !lent_[i] && q.buffers[i].fill.kind != wire::FillKind::Device;
  if (same) return;
  release();
  for (const auto& b : q.buffers) {
    void* p = nullptr;
    const bool borrowed = b.fill.kind == wire::FillKind::Device;
    const uint64_t bytes = data_bytes(b) + wire::kGuardElements * 4;
    if (borrowed) {
      p = lent_place(b, lent);
    } else if (cudaError_t e = cudaMalloc(&p, bytes); e != cudaSuccess) {
      cudaGetLastError();
      throw CudaFailure(e, "could not allocate " + b.name + " (" + std::to_string(bytes >> 20) +
                               " MiB) on the GPU: " + cudaGetErrorString(e) + "; try a smaller --size");
    }
    ptrs_.push_back(p);
    bytes_.push_back(data_bytes(b));
    lent_.push_back(borrowed);
  }
}

void DeviceBuffers::prepare(const wire::CallRequest& q, const uint8_t* shm, bool synchronize,
                            const wire::SharedDeviceMemory* lent) {
  allocate(q, lent);
  for (size_t i = 0; i < q.buffers.size(); ++i) {
    const auto& b = q.buffers[i];
    uint8_t* p = static_cast<uint8_t*>(ptrs_[i]);
    switch (b.fill.kind) {
      case wire::FillKind::Poison: require(__real_cudaMemset(p, 0xFF, data_bytes(b)), "poisoning " + b.name); break;
      case wire::FillKind::Data:
        require(__real_cudaMemcpy(p, shm + b.slot_offset, data_bytes(b), cudaMemcpyHostToDevice), "copying " + b.name);
        break;
      case wire::FillKind::Random: fill_random(p, b); break;
      case wire::FillKind::Device: break;  // the checker made the values where they are
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
