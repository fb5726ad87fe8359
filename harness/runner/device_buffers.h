// The call's buffers on the device, as the protocol describes them: allocated with their
// guard words, filled (from the seed, from the checker's bytes, or poisoned) or lent by the
// checker (a Device fill: its memory, mapped), and written back into the shared memory
// afterwards. Runs in the kernel runner.
#pragma once
#include <cstdint>
#include <vector>

#include "wire/protocol.h"
#include "wire/shared_device_memory.h"

namespace cudalab::run {

class DeviceBuffers {
 public:
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() { release(); }
  // Allocates (reusing the last call's memory when the shapes match) and fills every buffer;
  // `synchronize`: waits for the fills (a timed batch waits once, for all its calls' fills).
  // A Device-filled buffer is its place in `lent` (the checker's memory, mapped for this call):
  // the caller keeps `lent` mapped until write_back and release() before it lets it go.
  void prepare(const wire::CallRequest& q, const uint8_t* shm, bool synchronize = true,
               const wire::SharedDeviceMemory* lent = nullptr);
  // Copies returned elements (unless outputs is false) and every buffer's guards into its slot.
  // A sampled output (BufferSpec::samples > 0, timed batches only) brings back only the elements
  // `drawn` names for it: drawn holds one index list per sampled buffer, in buffer order.
  void write_back(const wire::CallRequest& q, uint8_t* shm, bool outputs = true,
                  const std::vector<std::vector<uint64_t>>& drawn = {}) const;
  const std::vector<void*>& pointers() const { return ptrs_; }
  void release();

 private:
  void allocate(const wire::CallRequest& q, const wire::SharedDeviceMemory* lent);
  std::vector<void*> ptrs_;
  std::vector<uint64_t> bytes_;
  std::vector<bool> lent_;  // per buffer: the checker's memory, not ours to free
};

// Fills count elements at device pointer p from a Random fill (fill_gpu.cu or fill_cpu.cpp).
void fill_random(void* p, const wire::BufferSpec& b);
// Writes the kGuardElements guard words of `salt` (wire::guard_word) at device address `at`,
// byte by byte (a byte buffer's guards need not be word-aligned): on the GPU a kernel, queued
// behind the fill, where a copy from the host would wait for it.
void write_guards(void* at, uint64_t salt);
// Evicts the GPU's L2 cache (a no-op on the CPU backend).
void flush_l2_cache();
// Copies the elements at `indices` (each below the buffer's count: the protocol checked them) of
// the device buffer p, elem_bytes each, to host memory `out`, in the order of `indices`: a few
// thousand elements of a large output without copying all of it (runner_gpu.cu: a gather kernel;
// runner_cpu.cpp: device memory is host memory).
void gather_elements(const void* p, size_t elem_bytes, const std::vector<uint64_t>& indices, void* out);

}  // namespace cudalab::run
