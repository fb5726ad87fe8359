#include "gpu_gate.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace cudalab {
namespace {

// Opens `path` and takes `how` (LOCK_EX or LOCK_SH) on it, waiting; the descriptor, or -1 when
// `path` is empty. O_CLOEXEC: the runner (the student's process) must never inherit a lock's
// descriptor. Throws, naming the file and `option`, when it cannot.
int open_locked(const std::string& path, int how, const std::string& option) {
  if (path.empty()) return -1;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(option + " " + path + ": cannot open it: " + std::strerror(errno));
  while (::flock(fd, how) != 0) {
    if (errno == EINTR) continue;
    const int e = errno;
    ::close(fd);
    throw std::runtime_error(option + " " + path + ": cannot lock it: " + std::strerror(e));
  }
  return fd;
}

std::string startup_file(const std::string& gate_path) { return gate_path.empty() ? "" : gate_path + ".start"; }

}  // namespace

GpuGate::GpuGate(const std::string& path) : fd_(open_locked(path, LOCK_EX, "--gpu-gate")) {}

GpuGate::~GpuGate() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the lock
}

GpuStartup::GpuStartup(const std::string& gate_path)
    : fd_(open_locked(startup_file(gate_path), LOCK_SH, "--gpu-gate's start-up lock")) {}

void GpuStartup::release() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

MeasuredSpan::MeasuredSpan(const std::string& gate_path)
    : fd_(open_locked(startup_file(gate_path), LOCK_EX, "--gpu-gate's start-up lock")) {}

MeasuredSpan::~MeasuredSpan() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace cudalab
