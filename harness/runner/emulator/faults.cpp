// cudalab CPU backend: segmentation faults. Inside a kernel: a GPU's illegal address, naming the
// kernel, block and thread, or a stack overflow. In the lab's host code, on device memory closed
// to it: said in words, and inside control::run_host_code the call is abandoned with that text
// (emulator_internal.h: the emulator's other files).
#include "emulator_internal.h"

#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(CUDALAB_CPU_ASAN)
// Like compute-sanitizer's memcheck by default: memory a lab never freed is not an error.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
#endif

namespace cudalab_cpu::emulator {

#if defined(CUDALAB_CPU_ASAN)
// AddressSanitizer owns the memory and the faults (no guard pages, no handler of ours).
void ensure_altstack() {}
#else

namespace {

// A fault of the lab's host code on device memory: where run_host_code resumes (on the thread
// that runs it) and what happened. Written by the fault handler: fixed storage.
thread_local sigjmp_buf* t_host_recovery = nullptr;
char g_host_fault[1024];

// "read" or "wrote to", from the page fault's error code (bit 1: a write).
const char* access_verb(void* uc) {
#if defined(__x86_64__) && defined(REG_ERR)
  return (static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_ERR] & 2) ? "wrote to" : "read";
#else
  (void)uc;
  return "touched";
#endif
}

// A segmentation fault inside a kernel: say which kernel, block and thread, and stop the way a
// GPU reports an illegal address (the process cannot go on safely).
void on_fault(int sig, siginfo_t* info, void* uc) {
  Worker* w = t_worker;
  char buf[1024];
  if (w && w->current && w->launch) {
    Fiber* f = w->current;
    char* addr = static_cast<char*>(info->si_addr);
    bool overflow = addr >= f->region && addr < f->region + kPage;
    // Device memory closed to the lab's host code opens at a kernel's first touch: then the
    // access runs again. (-1: the allocations' lock is taken for a moment; try again.)
    thread_local unsigned busy = 0;
    if (!overflow) {
      const int opened = detail::open_for_kernel(addr);
      if (opened > 0 || (opened < 0 && ++busy < 100000000)) return;
    }
    busy = 0;
    const Launch& L = *w->launch;
    int tid = f->tid;
    if (overflow)
      std::snprintf(buf, sizeof buf,
                    "cudalab: %s: thread %s of %s overflowed its %zu KB stack (a large local array, or deep "
                    "recursion?). Set CUDALAB_CPU_STACK_KB to give threads more.\n",
                    kernel_text(L).c_str(), thread_text(L.block, tid).c_str(), block_text(blockIdx, L.grid).c_str(),
                    stack_bytes() / 1024);
    else {
      const char* verb = access_verb(uc);
      char place[400];
      if (detail::describe_device_address(addr, place, sizeof place))
        std::snprintf(buf, sizeof buf,
                      "cudalab: %s: thread %s of %s %s memory %s: an illegal address "
                      "(cudaErrorIllegalAddress on a GPU). Check the index against the array's size; rebuild "
                      "with CHECK=asan to see the exact line.\n",
                      kernel_text(L).c_str(), thread_text(L.block, tid).c_str(), block_text(blockIdx, L.grid).c_str(),
                      verb, place);
      else
        std::snprintf(buf, sizeof buf,
                      "cudalab: %s: thread %s of %s %s memory it does not own (address %p), like "
                      "cudaErrorIllegalAddress on a GPU. Rebuild with CHECK=asan to see the exact line.\n",
                      kernel_text(L).c_str(), thread_text(L.block, tid).c_str(), block_text(blockIdx, L.grid).c_str(),
                      verb, static_cast<void*>(addr));
    }
#if defined(CUDALAB_CPU_OWN_SWITCH)
    // Like a GPU, fail the launch with an error the host can read (the harness then stops and
    // reports), instead of killing the process: leave the faulting fiber for the scheduler,
    // which abandons the block. SA_NODEFER keeps later faults deliverable.
    buf[std::strlen(buf) - 1] = '\0';
    fail_launch(*w->launch, cudaErrorIllegalAddress, buf);
    w->aborted = true;
    void* abandoned;
    cudalab_cpu_switch(&abandoned, w->scheduler_sp);
#endif
    ssize_t r = write(2, buf, std::strlen(buf));
    (void)r;
    _exit(3);
  }
  // Host code (no kernel runs on this thread) touched device memory, which is closed to it
  // while the lab's host code runs: on a GPU the process would die of this segmentation fault.
  // Say what it touched; inside run_host_code the call is abandoned and fails with this text.
  char place[400];
  if (detail::describe_host_access(info->si_addr, place, sizeof place)) {
    std::snprintf(g_host_fault, sizeof g_host_fault,
                  "your host code %s device memory (%s): a device pointer cannot be dereferenced on the host (on "
                  "a GPU this is a segmentation fault that ends the program). Only kernels may read or write "
                  "device memory: do the work in a kernel",
                  access_verb(uc), place);
    if (t_host_recovery) siglongjmp(*t_host_recovery, 1);
    ssize_t r = write(2, "cudalab: ", 9);
    r = write(2, g_host_fault, std::strlen(g_host_fault));
    r = write(2, "\n", 1);
    (void)r;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

struct FaultHandler {
  FaultHandler() {
    static char alt[64 * 1024];
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
  }
};
// Installed before main: the handler is the whole process's, this alternate stack the main thread's.
FaultHandler g_fault_handler;

}  // namespace

// Helper threads need their own alternate signal stack for the handler to run on.
void ensure_altstack() {
  thread_local bool done = false;
  if (done) return;
  done = true;
  stack_t ss{};
  ss.ss_size = 64 * 1024;
  ss.ss_sp = std::malloc(ss.ss_size);
  sigaltstack(&ss, nullptr);
}
#endif

}  // namespace cudalab_cpu::emulator

namespace cudalab_cpu::control {

using namespace emulator;

std::string run_host_code(void (*fn)(void*), void* arg) {
#if defined(CUDALAB_CPU_ASAN)
  fn(arg);  // no guard pages (AddressSanitizer owns the memory and the faults)
  return "";
#else
  // Device memory closes now and opens again however this returns (below, or by an exception).
  struct Closed {
    Closed() { detail::close_device_memory(true); }
    ~Closed() {
      t_host_recovery = nullptr;
      detail::close_device_memory(false);
    }
  } closed;
  sigjmp_buf recovery;
  if (sigsetjmp(recovery, 1) != 0) return g_host_fault;  // on_fault came back here
  g_host_fault[0] = '\0';
  t_host_recovery = &recovery;
  fn(arg);
  return "";
#endif
}

}  // namespace cudalab_cpu::control
