// What the checker says when the runner's system-call filter ended it (runner/syscall_filter.h):
// the runner died of SIGSYS, which only a refused call causes; the number it sent just before
// (wire::MessageType::SyscallRefused) names the call, when it came.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "wire/protocol.h"

namespace cudalab {

// Thrown where a SyscallRefused frame arrives instead of the reply: the runner is ending.
struct SyscallRefusedFrame : wire::ProtocolError {
  uint32_t number;
  std::string file;  // open/openat: the file's name, as the runner said (printable, cut)
  SyscallRefusedFrame(uint32_t nr, std::string f)
      : wire::ProtocolError("the kernel runner refused a system call of the lab's code"),
        number(nr),
        file(std::move(f)) {}
};

// "your code asked the operating system to open a file (openat), which ..." for the lab's
// function; without the number, the call is not named.
std::string refused_syscall_message(const std::string& function, std::optional<uint32_t> number,
                                    const std::string& file = "");

}  // namespace cudalab
