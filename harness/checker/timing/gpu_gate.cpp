#include "gpu_gate.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace cudalab {

GpuGate::GpuGate(const std::string& path) {
  if (path.empty()) return;
  // O_CLOEXEC: the runner (the student's process) must never inherit the lock's descriptor.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error("--gpu-gate " + path + ": cannot open it: " + std::strerror(errno));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("--gpu-gate " + path + ": cannot lock it: " + std::strerror(e));
  }
}

GpuGate::~GpuGate() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the lock
}

}  // namespace cudalab
