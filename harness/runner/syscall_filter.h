// The kernel runner's system calls, limited by the kernel (seccomp) once its runtime is up.
//
// The lab file shares the runner's process, so whatever the runner may do, the lab's code may
// do too: open files, talk on sockets, start processes, lift the memory protection that keeps
// its host code out of device memory. Names cannot stop that (a raw `syscall` instruction, a
// function found through the loader's own tables). The operating system can: after the CUDA
// context (or the emulator) is made and before any code of the lab's runs, the runner installs
// a seccomp filter that admits only what the runtime and the checker's socket need, measured
// with tools/measure/runner_syscalls.sh on a GPU and on the CPU backend (docs/link_contract.md lists it).
// Every other call ends the process: the SIGSYS handler tells the checker which call it was (a
// SyscallRefused frame, harness/wire/protocol.h) and the process then dies of SIGSYS, which is
// what the checker believes (the frame only names the call).
//
// Linux on x86-64 only; elsewhere lock_down_system_calls() says why it did nothing.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::run {

// Memory whose protection and mappings only one instruction may change (the CPU backend's
// device memory and the schedule's page: harness/runner/emulator/arena.h). mprotect, mmap,
// munmap, madvise and mremap on a range, or on the 4 GiB below it (a length cannot reach in
// from beneath: mprotect's is held under 4 GiB), are refused unless made from `site`.
struct MemoryGuard {
  uintptr_t site = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;  // [lo, hi)
};

// Installs the filter for every thread of the process (and every thread started later).
// Returns "" once it holds, else why not.
std::string lock_down_system_calls(const MemoryGuard& guard = {});

}  // namespace cudalab::run
