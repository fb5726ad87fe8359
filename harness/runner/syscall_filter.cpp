#include "syscall_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__linux__) && defined(__x86_64__)
#include <linux/audit.h>
#include <linux/sched.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#endif

#include "wire/protocol.h"

namespace cudalab::run {

#if defined(__linux__) && defined(__x86_64__)
namespace {

// ---- The allow-list ------------------------------------------------------------------------
// Measured with tools/measure/runner_syscalls.sh (what a runner calls after its hello): the CUDA
// runtime on an H100/H200 (ioctl, mmap, poll and sched_yield in its waits), the emulator on the
// CPU backend (mmap/mprotect of device memory and fiber stacks, threads for its workers), the
// socket to the checker, and what the C and C++ libraries call underneath printf, new and
// std::thread. What a lab may do is compute and print; anything else is refused.
const int kAllowed[] = {
    // memory (mmap, mprotect, munmap, madvise, mremap: below, by their arguments)
    SYS_brk,
    SYS_membarrier,
    // descriptors the process already holds: the checker's socket, stdout and stderr, the
    // driver's devices (ioctl), the request's shared memory
    SYS_read,
    SYS_write,
    SYS_readv,
    SYS_writev,
    SYS_pread64,
    SYS_pwrite64,
    SYS_lseek,
    SYS_close,
    SYS_fstat,
    SYS_newfstatat,
    SYS_ioctl,
    SYS_getdents64,
    SYS_sendmsg,
    SYS_recvmsg,
    SYS_sendto,
    SYS_recvfrom,
    SYS_poll,
    SYS_ppoll,
    SYS_select,
    SYS_pselect6,
    SYS_epoll_wait,
    SYS_epoll_pwait,
    SYS_shutdown,
    // threads and waiting
    SYS_futex,
    SYS_set_robust_list,
    SYS_rseq,
    SYS_sched_yield,
    SYS_sched_getaffinity,
    SYS_nanosleep,
    SYS_clock_nanosleep,
    SYS_clock_gettime,
    SYS_clock_getres,
    SYS_gettimeofday,
    SYS_exit,
    // signals of its own
    SYS_rt_sigprocmask,
    SYS_rt_sigreturn,
    SYS_sigaltstack,
    // questions with harmless answers
    SYS_getpid,
    SYS_gettid,
    SYS_getuid,
    SYS_geteuid,
    SYS_getgid,
    SYS_getegid,
    SYS_getrandom,
    SYS_uname,
    SYS_sysinfo,
    SYS_getrlimit,
    SYS_getrusage,
    SYS_times,
    SYS_getcpu,
    SYS_sched_getparam,
    SYS_sched_getscheduler,
    // what a runtime may do on its own later (not seen in the measurements; harmless to the line):
    // descriptors that reach nothing outside (eventfd, pipe), its own pages' placement and locking
    SYS_eventfd2,
    SYS_pipe2,
    SYS_get_mempolicy,
    SYS_set_mempolicy,
    SYS_mbind,
    SYS_mlock,
    SYS_munlock,
    SYS_mincore,
    SYS_exit_group,
};

sock_filter stmt(uint16_t code, uint32_t k) { return sock_filter{code, 0, 0, k}; }
sock_filter jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) { return sock_filter{code, jt, jf, k}; }

// A small assembler for the filter: every test is a jump over the next instruction, so no
// jump is ever longer than BPF's 255.
struct Program {
  std::vector<sock_filter> code;
  void load_nr() { code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr))); }
  void load_arg_low(int i) { code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args) + 8 * i)); }
  void load_arg_high(int i) {
    code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args) + 8 * i + 4));
  }
  void ret(uint32_t action) { code.push_back(stmt(BPF_RET | BPF_K, action)); }
  // if (A == k) return action;
  void if_equal_return(uint32_t k, uint32_t action) {
    code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1));
    ret(action);
  }
  // if (A & bits) return action;
  void if_any_bit_return(uint32_t bits, uint32_t action) {
    code.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1));
    ret(action);
  }
  // if (A != k) skip the next n instructions
  void unless_equal_skip(uint32_t k, uint8_t n) { code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, k, 0, n)); }
};

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kRefuse = SECCOMP_RET_TRAP;  // SIGSYS: on_refused() below, then death by SIGSYS

// A call admitted only with some arguments: the instructions after the test of its number.
// Each block ends in a return, so the call never falls through to another's.
template <class Body>
void conditional(Program& p, int nr, Body body) {
  Program block;
  body(block);
  block.ret(kRefuse);  // every body returns before this; a body that forgot to admits nothing
  p.load_nr();
  p.unless_equal_skip(uint32_t(nr), uint8_t(block.code.size()));
  p.code.insert(p.code.end(), block.code.begin(), block.code.end());
}

// if (lo <= argument i < hi), all 64 bits, return action. (BPF compares 32 bits, unsigned.)
void if_arg_in_range_return(Program& b, int i, uint64_t lo, uint64_t hi, uint32_t action) {
  const auto lo_hi = uint32_t(lo >> 32), lo_lo = uint32_t(lo), hi_hi = uint32_t(hi >> 32), hi_lo = uint32_t(hi);
  b.load_arg_high(i);  // 0
  b.code.push_back(jump(BPF_JMP | BPF_JGT | BPF_K, lo_hi, 3, 0));  // 1: above lo's high word: to 5
  b.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, lo_hi, 0, 8));  // 2: below it: out (11)
  b.load_arg_low(i);  // 3
  b.code.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, lo_lo, 0, 6));  // 4: below lo: out
  b.load_arg_high(i);  // 5
  b.code.push_back(jump(BPF_JMP | BPF_JGT | BPF_K, hi_hi, 4, 0));  // 6: above hi's high word: out
  b.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, hi_hi, 0, 2));  // 7: below it: in (10)
  b.load_arg_low(i);  // 8
  b.code.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, hi_lo, 1, 0));  // 9: at or past hi: out
  b.ret(action);  // 10
}  // 11: out

// Whether argument i, all 64 bits, equals v: admits when it does.
void allow_if_arg_is(Program& b, int i, uint64_t v) {
  b.load_arg_high(i);
  b.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(v >> 32), 0, 3));
  b.load_arg_low(i);
  b.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(v), 0, 1));
  b.ret(kAllow);
}

// The memory calls on guarded memory (MemoryGuard): from the guard's instruction, `usual` decides;
// from anywhere else, a call at a guarded address (or within 4 GiB below one), an mprotect of
// 4 GiB or more, or an mremap to a fixed address is refused, then `usual` decides.
template <class Usual>
void memory_call(Program& p, int nr, const MemoryGuard& guard, Usual usual) {
  conditional(p, nr, [&](Program& b) {
    if (guard.site) {
      Program checks;  // not from the site: the guarded ranges first
      constexpr uint64_t k4GiB = uint64_t(1) << 32;
      // (mremap's new address, argument 4, is read only with MREMAP_FIXED, refused below.)
      for (const auto& [lo, hi] : guard.ranges)
        if_arg_in_range_return(checks, 0, lo > k4GiB ? lo - k4GiB : 0, hi, kRefuse);
      if (nr == SYS_mprotect) {
        checks.load_arg_high(1);
        checks.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
        checks.ret(kRefuse);
      }
      if (nr == SYS_mremap) {
        checks.load_arg_low(3);
        checks.if_any_bit_return(MREMAP_FIXED, kRefuse);
      }
      // from the site: skip the checks
      b.code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer)));
      b.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(guard.site), 0, 2));
      b.code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer) + 4));
      b.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(guard.site >> 32), uint8_t(checks.code.size()), 0));
      b.code.insert(b.code.end(), checks.code.begin(), checks.code.end());
    }
    usual(b);
  });
}

Program build_filter(pid_t self, const MemoryGuard& guard) {
  Program p;
  // Another architecture's table (int 0x80 reaches the 32-bit one) and the x32 numbers: refused.
  p.code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  p.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  p.ret(kRefuse);
  p.load_nr();
  p.code.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  p.ret(kRefuse);
  for (int nr : kAllowed) p.if_equal_return(uint32_t(nr), kAllow);
  // Memory, never executable: no code the checks never saw, made at run time. Guarded memory's
  // protection changed only by its own instruction.
  for (int nr : {SYS_mmap, SYS_mprotect})
    memory_call(p, nr, guard, [](Program& b) {
      b.load_arg_low(2);
      b.if_any_bit_return(PROT_EXEC, kRefuse);
      b.ret(kAllow);
    });
  for (int nr : {SYS_munmap, SYS_madvise, SYS_mremap}) memory_call(p, nr, guard, [](Program& b) { b.ret(kAllow); });
  // Threads (the emulator's workers, the runtime's helpers), never a new process. clone3 hides
  // its flags in memory the filter cannot read: "not here" sends the C library to clone.
  conditional(p, SYS_clone, [](Program& b) {
    b.load_arg_low(0);
    b.code.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    b.ret(kAllow);
    b.ret(kRefuse);
  });
  p.load_nr();
  p.if_equal_return(SYS_clone3, SECCOMP_RET_ERRNO | ENOSYS);
  // Files: no access (EACCES), without ending the run. The C library and the runtime read files
  // lazily on their own (the core count for a new malloc arena, /proc settings, translations),
  // and cope with a refusal; a lab's code that tries gets nothing from it.
  for (int nr : {SYS_open, SYS_openat, SYS_openat2, SYS_creat, SYS_stat, SYS_lstat, SYS_access, SYS_faccessat,
                 SYS_faccessat2, SYS_readlink, SYS_readlinkat, SYS_statx})
    p.if_equal_return(uint32_t(nr), SECCOMP_RET_ERRNO | EACCES);
  // Signals: to this process only; handlers only for the C library's own two (thread
  // cancellation and set*id, which it installs when a thread first needs them), and asking.
  for (int nr : {SYS_kill, SYS_tgkill})
    conditional(p, nr, [self](Program& b) {
      allow_if_arg_is(b, 0, uint64_t(self));
      b.ret(kRefuse);
    });
  conditional(p, SYS_rt_sigaction, [](Program& b) {
    allow_if_arg_is(b, 1, 0);  // no new handler: a question
    b.load_arg_low(0);
    b.if_equal_return(32, kAllow);
    b.if_equal_return(33, kAllow);
    b.ret(kRefuse);
  });
  // Descriptor flags, not new descriptors (F_DUPFD would be one).
  conditional(p, SYS_fcntl, [](Program& b) {
    b.load_arg_low(1);
    for (uint32_t cmd : {F_GETFD, F_SETFD, F_GETFL, F_SETFL}) b.if_equal_return(cmd, kAllow);
    b.ret(kRefuse);
  });
  // A thread's name (the runtime names its helpers), nothing else prctl can change.
  conditional(p, SYS_prctl, [](Program& b) {
    b.load_arg_low(0);
    b.if_equal_return(PR_SET_NAME, kAllow);
    b.if_equal_return(PR_GET_NAME, kAllow);
    b.ret(kRefuse);
  });
  // Limits: read, never raised or lowered.
  conditional(p, SYS_prlimit64, [](Program& b) {
    allow_if_arg_is(b, 2, 0);
    b.ret(kRefuse);
  });
  // The runner empties the inputs' part of a request's shared memory once they are on the
  // device (device_buffers.cpp): a hole punched, nothing else fallocate does.
  conditional(p, SYS_fallocate, [](Program& b) {
    b.load_arg_low(1);
    b.if_equal_return(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, kAllow);
    b.ret(kRefuse);
  });
  p.ret(kRefuse);
  return p;
}

// ---- A refused call --------------------------------------------------------------------------
// Async-signal-safe: no allocation, no stdio.
size_t put_text(char* to, size_t at, const char* s) {
  while (*s) to[at++] = *s++;
  return at;
}
size_t put_number(char* to, size_t at, unsigned v) {
  char digits[12];
  int n = 0;
  do digits[n++] = char('0' + v % 10);
  while ((v /= 10) && n < 11);
  while (n) to[at++] = digits[--n];
  return at;
}

// Tells the checker which call was refused (one frame on its socket: wire::SyscallRefused),
// says it on stderr, then ends the process by SIGSYS: the handler was installed with
// SA_RESETHAND, so the next refused call (ours, below) finds the default action, death.
void on_refused(int, siginfo_t* info, void* context) {
  const uint32_t nr = uint32_t(info->si_syscall);
  // For a file opened, its name: it says who asked (a runtime's own lazy file, or the lab's code).
  char path[200];
  size_t path_len = 0;
  if (nr == SYS_openat || nr == SYS_open) {
    const ucontext_t* uc = static_cast<const ucontext_t*>(context);
    const char* p = reinterpret_cast<const char*>(uc->uc_mcontext.gregs[nr == SYS_openat ? REG_RSI : REG_RDI]);
    while (p && p[path_len] && path_len < sizeof path) path[path_len] = p[path_len], ++path_len;
  }
  unsigned char frame[12 + 4 + sizeof path];
  const uint32_t type = uint32_t(wire::MessageType::SyscallRefused);
  const uint64_t length = 4 + path_len;
  std::memcpy(frame, &type, 4);
  std::memcpy(frame + 4, &length, 8);
  std::memcpy(frame + 12, &nr, 4);
  std::memcpy(frame + 16, path, path_len);
  (void)!send(wire::kRunnerFd, frame, 16 + path_len, MSG_NOSIGNAL | MSG_DONTWAIT);
  char line[512];
  size_t n = put_text(line, 0, "cudalab: the kernel runner refused system call ");
  n = put_number(line, n, nr);
  if (path_len) {
    n = put_text(line, n, " (");
    std::memcpy(line + n, path, path_len);
    n += path_len;
    n = put_text(line, n, ")");
  }
  n = put_text(line, n, " (a lab file may compute and print, nothing more)\n");
  (void)!write(2, line, n);
  syscall(SYS_getppid);  // refused too: SIGSYS, now with its default action
  _exit(128 + SIGSYS);  // not reached
}

}  // namespace

std::string lock_down_system_calls(const MemoryGuard& guard) {
  struct sigaction sa {};
  sa.sa_sigaction = on_refused;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) return std::string("sigaction: ") + std::strerror(errno);
  Program p = build_filter(getpid(), guard);
  sock_fprog prog{static_cast<unsigned short>(p.code.size()), p.code.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
    return std::string("seccomp: ") + std::strerror(errno);
  return "";
}

#else

std::string lock_down_system_calls(const MemoryGuard&) {
  return "the system-call filter is written for Linux on x86-64";
}

#endif

}  // namespace cudalab::run
