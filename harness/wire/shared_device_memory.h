// Device memory one process makes and another maps: how a check's large inputs reach the kernel
// runner (protocol.h, DeviceInputs). The checker makes the values on its own GPU context, in an
// allocation made exportable as a file descriptor (the driver's virtual memory management,
// POSIX handles); the descriptor travels over the socket (SCM_RIGHTS) and the runner maps the
// same memory as the lab's input buffer. No value crosses host memory, and the runner never
// holds a seed: the lab's host code cannot make its inputs again.
//
// The driver's entry points are found through the runtime (cudaGetDriverEntryPointByVersion),
// so neither program links libcuda itself. The GPU builds only (shared_device_memory.cu).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace cudalab::wire {

class SharedDeviceMemory {
 public:
  // An exportable allocation of at least `bytes` on the current device, mapped read-write
  // here. nullptr, with the reason in `why`, where the driver or device cannot share memory.
  static std::unique_ptr<SharedDeviceMemory> create(size_t bytes, std::string& why);
  // Maps the allocation another process exported as descriptor `fd` (which this closes, mapped
  // or not); `bytes`: its size as the sender said, checked against the allocation's.
  static std::unique_ptr<SharedDeviceMemory> import(int fd, uint64_t bytes, std::string& why);
  // Whether the current device can share memory this way (asked once, before any call).
  static bool supported();

  SharedDeviceMemory(const SharedDeviceMemory&) = delete;
  SharedDeviceMemory& operator=(const SharedDeviceMemory&) = delete;
  ~SharedDeviceMemory();  // unmaps; the memory goes when every process has let it go

  // A new descriptor for the allocation (the caller sends and closes it); -1 on failure.
  int export_fd() const;
  uint8_t* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  SharedDeviceMemory() = default;
  bool map(std::string& why);
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  unsigned long long handle_ = 0;  // CUmemGenericAllocationHandle
  int device_ = 0;
};

}  // namespace cudalab::wire
