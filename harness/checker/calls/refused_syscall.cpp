#include "refused_syscall.h"

#include <sys/syscall.h>

namespace cudalab {

namespace {

struct Known {
  long number;
  const char* name;
  const char* what;  // "open a file": what the call asks of the operating system
};

// The calls a lab file's code is likely to have tried, by what they ask for (x86-64 numbers:
// the filter refuses every other architecture's table as a whole).
const Known kKnown[] = {
#if defined(__x86_64__)
    {SYS_open, "open", "open a file"},
    {SYS_openat, "openat", "open a file"},
    {SYS_openat2, "openat2", "open a file"},
    {SYS_creat, "creat", "create a file"},
    {SYS_stat, "stat", "look at a file"},
    {SYS_lstat, "lstat", "look at a file"},
    {SYS_access, "access", "look at a file"},
    {SYS_readlink, "readlink", "look at a file"},
    {SYS_unlink, "unlink", "remove a file"},
    {SYS_unlinkat, "unlinkat", "remove a file"},
    {SYS_rename, "rename", "rename a file"},
    {SYS_mkdir, "mkdir", "make a folder"},
    {SYS_chmod, "chmod", "change a file"},
    {SYS_truncate, "truncate", "change a file"},
    {SYS_ftruncate, "ftruncate", "change a file"},
    {SYS_socket, "socket", "open a network connection"},
    {SYS_connect, "connect", "open a network connection"},
    {SYS_bind, "bind", "open a network connection"},
    {SYS_socketpair, "socketpair", "make a connection"},
    {SYS_dup, "dup", "copy a file descriptor"},
    {SYS_dup2, "dup2", "copy a file descriptor"},
    {SYS_dup3, "dup3", "copy a file descriptor"},
    {SYS_fcntl, "fcntl", "copy a file descriptor"},
    {SYS_fork, "fork", "start a process"},
    {SYS_vfork, "vfork", "start a process"},
    {SYS_clone, "clone", "start a process"},
    {SYS_execve, "execve", "run a program"},
    {SYS_execveat, "execveat", "run a program"},
    {SYS_kill, "kill", "signal another process"},
    {SYS_tgkill, "tgkill", "signal another process"},
    {SYS_tkill, "tkill", "signal a thread"},
    {SYS_rt_sigaction, "rt_sigaction", "change how signals are handled"},
    {SYS_ptrace, "ptrace", "look into another process"},
    {SYS_process_vm_readv, "process_vm_readv", "read another process's memory"},
    {SYS_process_vm_writev, "process_vm_writev", "write another process's memory"},
    {SYS_pidfd_open, "pidfd_open", "reach another process"},
    {SYS_pidfd_getfd, "pidfd_getfd", "take another process's files"},
    {SYS_mmap, "mmap", "map memory that is executable, or over device memory"},
    {SYS_mprotect, "mprotect", "change memory's protection (to executable, or device memory's)"},
    {SYS_munmap, "munmap", "unmap device memory"},
    {SYS_madvise, "madvise", "change device memory"},
    {SYS_mremap, "mremap", "move memory"},
    {SYS_pkey_mprotect, "pkey_mprotect", "change memory protection"},
    {SYS_memfd_create, "memfd_create", "make an anonymous file"},
    {SYS_prctl, "prctl", "change the process"},
    {SYS_prlimit64, "prlimit64", "change the process's limits"},
    {SYS_setrlimit, "setrlimit", "change the process's limits"},
    {SYS_sched_setaffinity, "sched_setaffinity", "move to other CPU cores"},
    {SYS_perf_event_open, "perf_event_open", "read performance counters"},
    {SYS_bpf, "bpf", "load a kernel program"},
    {SYS_io_uring_setup, "io_uring_setup", "start asynchronous I/O"},
    {SYS_userfaultfd, "userfaultfd", "handle page faults"},
    {SYS_unshare, "unshare", "change namespaces"},
    {SYS_setns, "setns", "change namespaces"},
    {SYS_mount, "mount", "mount a file system"},
    {SYS_seccomp, "seccomp", "change the system-call filter"},
    {SYS_fallocate, "fallocate", "change a file"},
    {SYS_getppid, "getppid", "find its parent process"},
#endif
};

}  // namespace

std::string refused_syscall_message(const std::string& function, std::optional<uint32_t> number,
                                    const std::string& file) {
  std::string asked = "made a system call";
  if (number) {
    asked = "made system call " + std::to_string(*number);
    for (const Known& k : kKnown)
      if (uint32_t(k.number) == *number)
        asked = std::string("asked the operating system to ") + k.what + " (" + k.name + ")";
    if (!file.empty()) asked += ", " + file;
  }
  return "your code " + asked + " while " + function +
         " ran, which a lab file may not do: it computes on the GPU and may print, nothing more. The operating "
         "system stopped the process there (the kernel runner's system-call filter). Remove that call";
}

}  // namespace cudalab
