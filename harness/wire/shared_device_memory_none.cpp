// wire/shared_device_memory.h where there is no GPU (the CPU backend's checker and runner): nothing
// is shared. The CPU backend's runner says so in its Hello, and its checker sends every input as
// values; these answer "no" for the places that name the type in both builds.
#include <unistd.h>

#include "wire/shared_device_memory.h"

namespace cudalab::wire {

bool SharedDeviceMemory::supported() { return false; }

std::unique_ptr<SharedDeviceMemory> SharedDeviceMemory::create(size_t, std::string& why) {
  why = "the CPU backend has no device memory to share";
  return nullptr;
}

std::unique_ptr<SharedDeviceMemory> SharedDeviceMemory::import(int fd, uint64_t, std::string& why) {
  close(fd);
  why = "the CPU backend has no device memory to share";
  return nullptr;
}

int SharedDeviceMemory::export_fd() const { return -1; }
bool SharedDeviceMemory::map(std::string&) { return false; }
SharedDeviceMemory::~SharedDeviceMemory() = default;

}  // namespace cudalab::wire
