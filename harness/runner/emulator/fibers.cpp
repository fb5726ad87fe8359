// cudalab CPU backend: CUDA threads on fibers (emulator_internal.h: the emulator's other files).
//
// Inside a block every CUDA thread runs on a stackful fiber. On x86-64 the switch is the
// six-register swap below (about 2 ns); elsewhere it is Boost.Context's fcontext, whose switch
// also saves and restores the x87/SSE control words, which costs most of its time (measured
// with perf: 75% of jump_fcontext in fnstcw/fldcw on the tree-sum benchmark). Kernels never
// change rounding modes, so the short switch is safe. A fiber is a "runner": it runs not-yet-started threads of
// its block one after another as plain calls, and only when the thread it runs blocks (at
// __syncthreads or a warp operation) does the scheduler start another runner for the rest.
// So a kernel without barriers costs one fiber per block, and stacks are only taken when a
// kernel actually needs as many live threads as it has.
#include "emulator_internal.h"  // (with race.h or profile.h in those builds)

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

#if defined(CUDALAB_CPU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(CUDALAB_CPU_OWN_SWITCH)
asm(R"(
  .text
  .globl cudalab_cpu_switch
  .type cudalab_cpu_switch, @function
cudalab_cpu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size cudalab_cpu_switch, .-cudalab_cpu_switch
)");
#endif

namespace cudalab_cpu::emulator {

size_t stack_bytes() {
  static size_t bytes = [] {
    size_t kb =
#if defined(CUDALAB_CPU_ASAN)
        1024;  // sanitizers put larger frames on the stack
#else
        256;  // 1024 threads x 256 KB stays under 300 MB of address space per worker
#endif
    if (const char* e = std::getenv("CUDALAB_CPU_STACK_KB")) kb = std::max<long>(64, std::atol(e));
    return kb * 1024;
  }();
  return bytes;
}

namespace {

[[noreturn]] void runner_loop(Fiber* f);

void fiber_begin(Fiber* f) {
#if defined(CUDALAB_CPU_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
  runner_loop(f);
}

#if defined(CUDALAB_CPU_OWN_SWITCH)
[[noreturn]] void fiber_main() {
  fiber_begin(t_worker->current);
  __builtin_unreachable();
}
#else
void fiber_entry(ctx::transfer_t t) {
  note_switched_from(*t_worker, t);
  fiber_begin(t_worker->current);
}
#endif

}  // namespace

void start_fiber(Fiber* f) {
#if defined(CUDALAB_CPU_OWN_SWITCH)
  // Each stack's top sits at another cache line of its page (f->color): page-aligned tops would
  // all fall in the same cache sets, and a barrier switches through every thread's top in turn
  // (1024-thread tree sum: 4.5 s of CPU before, against HIP-CPU's 1.6 s; make bench-hipcpu).
  auto top = reinterpret_cast<uintptr_t>(f->region + f->region_size - f->color) & ~uintptr_t(15);
  auto* words = reinterpret_cast<void**>(top);
  words[-1] = nullptr;  // fiber_main's "return address": ends backtraces
  words[-2] = reinterpret_cast<void*>(&fiber_main);  // where the first switch's ret lands
  for (int i = 3; i <= 8; ++i) words[-i] = nullptr;  // the six callee-saved registers
  f->sp = &words[-8];
#else
  f->context =
      ctx::make_fcontext(f->region + f->region_size - f->color, f->region_size - kPage - f->color, fiber_entry);
#endif
  f->tid = -1;
  f->idle = true;
  f->fake_stack = nullptr;
}

namespace {

Fiber* new_fiber(Worker& w) {
  Fiber* f = new Fiber;
  f->worker = &w;
  f->region_size = stack_bytes() + kPage;
  // Reserved, not committed: only the pages a thread touches cost memory.
  void* p = mmap(nullptr, f->region_size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "cudalab: out of address space for CUDA thread stacks (%zu fibers)\n", w.fibers.size());
    std::abort();
  }
  f->region = static_cast<char*>(p);
  f->color = w.fibers.size() % 64 * 64;
  mprotect(f->region, kPage, PROT_NONE);  // guard page: a stack overflow faults instead of corrupting
  start_fiber(f);
  w.fibers.push_back(f);
  return f;
}

}  // namespace

namespace {

[[noreturn]] void runner_loop(Fiber* f) {
  Worker& w = *f->worker;
  for (;;) {
    f->idle = false;
    while (w.next_unstarted < w.n && !w.aborted) {
      int tid = w.order[w.next_unstarted++];
      Slot& s = w.slots[tid];
      s.state = kRunning;
      s.fiber = f;
      f->tid = tid;
      threadIdx = w.index[tid];
      race_runs(f);
      w.launch->body.run(w.launch->body.obj);
      race_runs(nullptr);
      s.state = kExited;
      --w.live;
      ++w.exited;
      w.warp_exited[tid >> 5] |= 1u << (tid & 31);
      f->tid = -1;
    }
    f->idle = true;
    w.idle.push_back(f);
    yield_fiber(w, f);
  }
}

}  // namespace

Fiber* take_runner(Worker& w) {
  if (!w.idle.empty()) {
    Fiber* f = w.idle.back();
    w.idle.pop_back();
    return f;
  }
  return new_fiber(w);
}

}  // namespace cudalab_cpu::emulator
