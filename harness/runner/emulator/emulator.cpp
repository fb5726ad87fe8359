// cudalab CPU backend: the kernel emulator.
//
// Worker OS threads (one per core; the launching thread is one of them) take whole blocks.
// Inside a block every CUDA thread runs on a stackful fiber. On x86-64 the switch is the
// six-register swap below (about 2 ns); elsewhere it is Boost.Context's fcontext, whose switch
// also saves and restores the x87/SSE control words, which costs most of its time (measured
// with perf: 75% of jump_fcontext in fnstcw/fldcw on the tree-sum benchmark). Kernels never
// change rounding modes, so the short switch is safe. A fiber is a "runner": it runs not-yet-started threads of
// its block one after another as plain calls, and only when the thread it runs blocks (at
// __syncthreads or a warp operation) does the scheduler start another runner for the rest.
// So a kernel without barriers costs one fiber per block, and stacks are only taken when a
// kernel actually needs as many live threads as it has.
//
// The scheduler knows what every thread is waiting for, so when nothing can run it can say
// why (threads at different barriers, a warp operation some lanes never reach) instead of
// hanging.
#include "arena.h"
#include "control.h"
#include "emulator.h"
#if defined(CUDALAB_CPU_RACE)
#include "race.h"
#endif
#if defined(CUDALAB_CPU_PROFILE)
#include "profile.h"
#endif

#include <setjmp.h>
#include <ucontext.h>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <boost/context/detail/fcontext.hpp>
#include <condition_variable>
#include <cstdarg>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <tuple>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#if defined(CUDALAB_CPU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(CUDALAB_CPU_ASAN)
// Like compute-sanitizer's memcheck by default: memory a lab never freed is not an error.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }
#endif

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace cudalab_cpu {

namespace ctx = boost::context::detail;

#if defined(__x86_64__) && !defined(CUDALAB_CPU_BOOST_SWITCH)
#define CUDALAB_CPU_OWN_SWITCH 1
// Saves the callee-saved registers on the current stack, stores the stack pointer in *from,
// loads `to` and restores what that stack saved. A new fiber's stack is laid out so that the
// final `ret` enters fiber_main (see start_fiber).
extern "C" void cudalab_cpu_switch(void** from, void* to);
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

__thread unsigned char* dynamic_smem_base;

namespace {

// kAtTurn: at a volatile access, waiting for the other lanes of its warp (warp_turn).
enum State : uint8_t { kUnstarted, kRunning, kAtBarrier, kAtWarp, kAtTurn, kExited };

struct Worker;

struct Fiber {
  ctx::fcontext_t context = nullptr;
  void* sp = nullptr;  // own switch: the saved stack pointer
  char* region = nullptr;  // mmap'ed: one guard page, then the stack
  size_t region_size = 0;
  size_t color = 0;  // bytes left unused at the stack's top (start_fiber says why)
  Worker* worker = nullptr;
  int tid = -1;  // the CUDA thread it runs, -1 while idle
  bool idle = true;  // parked at the top of the runner loop
  void* fake_stack = nullptr;  // AddressSanitizer's fake stack while switched out
};

struct Slot {
  State state;
  uint8_t op;
  int arg;
  int width;
  unsigned mask;
  int line;
  const char* file;
  uint64_t value;
  uint64_t result;
  Fiber* fiber;
  int returned_line;  // the kernel's `return;` it left by (kernel_return), 0: the closing brace
};

struct Launch {
  LaunchSite site;
  dim3 grid, block;
  size_t smem;
  KernelBody body;
  uint64_t blocks;
  unsigned threads;
  uint64_t serial;
  uint64_t schedule_index;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  // Warp lockstep: once the reliance is noted, the launch stops tracking volatile writes (the
  // bookkeeping costs more than the turns themselves).
  std::atomic<bool> lockstep_noted{false};
  cudaError_t error = cudaSuccess;
  std::string failure;
  std::mutex m;
};

enum class Schedule { InOrder, Reverse, Random };
// The schedule sits alone on a page that is read-only except inside set_schedule and
// seal_schedule: lab code in the same process that walks memory from its own variables to the
// emulator's faults instead of turning the race probe off.
struct alignas(4096) ScheduleState {
  Schedule mode = Schedule::InOrder;
  uint64_t seed = 0;
  bool sealed = false;
};
ScheduleState g_schedule_state;
static_assert(sizeof(ScheduleState) == 4096);
// Through the arena's one system-call instruction: the kernel runner's filter refuses any other
// change of this page's protection (arena.h).
void protect_schedule(bool writable) {
  arena::protect(&g_schedule_state, sizeof g_schedule_state, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}
// What the scheduler reads.
const Schedule& g_schedule = g_schedule_state.mode;
const uint64_t& g_schedule_seed = g_schedule_state.seed;
std::atomic<uint64_t> g_schedule_launches{0};  // launches since the schedule was set: seeds replay

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
const size_t kPage = 4096;

std::string thread_text(const dim3& block, int tid) {
  unsigned x = tid % block.x, y = (tid / block.x) % block.y, z = tid / (block.x * block.y);
  if (block.y == 1 && block.z == 1) return std::to_string(x);
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}
std::string block_text(const uint3& b, const dim3& grid) {
  if (grid.y == 1 && grid.z == 1) return "block " + std::to_string(b.x);
  return "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
}
std::string where(const char* file, int line) { return std::string(file ? file : "?") + ":" + std::to_string(line); }

// "0-15, 17, 20-31" for a set of lanes or threads.
std::string ranges(const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(ids[i]);
    if (j > i) s += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return s;
}

const char* op_name(int op) {
  switch (op) {
    case kShflIdx: return "__shfl_sync";
    case kShflUp: return "__shfl_up_sync";
    case kShflDown: return "__shfl_down_sync";
    case kShflXor: return "__shfl_xor_sync";
    case kBallot: return "__ballot_sync/__any_sync/__all_sync";
    case kSyncwarp: return "__syncwarp";
    case kMatchAny: return "__match_any_sync";
    case kMatchAll: return "__match_all_sync";
    default: return "__reduce_*_sync";
  }
}

struct Worker {
  ctx::fcontext_t scheduler = nullptr;  // where a fiber returns to
  void* scheduler_sp = nullptr;
  Fiber* current = nullptr;
  std::vector<Fiber*> fibers, idle;

  Launch* launch = nullptr;
  uint64_t launch_serial = ~0ull;
  uint64_t block_serial = 0;
  uint64_t block_linear = 0;
  unsigned n = 0;
  std::vector<Slot> slots;
  std::vector<uint3> index;  // tid -> threadIdx
  std::vector<int> order;  // the order threads start in
  std::vector<uint32_t> warp_arrived, warp_exited, warp_present;
  unsigned next_unstarted = 0, live = 0, exited = 0;
  std::vector<Fiber*> ready;
  size_t ready_head = 0;
  std::vector<int> turns;  // threads at a volatile access, waiting for the rest of the round
  // Warp lockstep: who last wrote each volatile location in this block, and when (a warp's
  // epoch moves at every barrier and every warp operation of that warp).
  struct VolatileWrite {
    int tid;
    uint64_t epoch;
  };
  std::unordered_map<const volatile void*, VolatileWrite> volatile_writes;
  std::vector<uint32_t> warp_syncs;
  std::vector<int> scratch;  // reused, so that barriers allocate nothing
  unsigned bar_arrived = 0;
  int bar_count = 0, bar_and = 1, bar_or = 0;
  int res_count = 0, res_and = 0, res_or = 0;
  uint64_t bar_epoch = 0;
  bool aborted = false;
  unsigned char* smem = nullptr;
  size_t smem_capacity = 0;
  std::mt19937_64 rng;

  const void* main_stack_bottom = nullptr;  // AddressSanitizer: the worker's own stack
  size_t main_stack_size = 0;
  void* main_fake_stack = nullptr;
};

thread_local Worker* t_worker = nullptr;

Worker& worker() {
  if (!t_worker) {
    t_worker = new Worker;  // lives as long as its OS thread; fibers keep pointers into it
#if defined(CUDALAB_CPU_ASAN)
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
    void* base = nullptr;
    pthread_attr_getstack(&attr, &base, &t_worker->main_stack_size);
    t_worker->main_stack_bottom = base;
    pthread_attr_destroy(&attr);
#endif
  }
  return *t_worker;
}

// ---- Fibers ---------------------------------------------------------------------------------

int configured_workers();

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
// Whoever switched here passed itself (nullptr: the scheduler); remember where it stopped.
void note_switched_from(Worker& w, ctx::transfer_t t) {
  if (t.data)
    static_cast<Fiber*>(t.data)->context = t.fctx;
  else
    w.scheduler = t.fctx;
}
void fiber_entry(ctx::transfer_t t) {
  note_switched_from(*t_worker, t);
  fiber_begin(t_worker->current);
}
#endif

void start_fiber(Fiber* f) {
#if defined(CUDALAB_CPU_OWN_SWITCH)
  // Each stack's top sits at another cache line of its page (f->color): page-aligned tops would
  // all fall in the same cache sets, and a barrier switches through every thread's top in turn
  // (1024-thread tree sum: 4.5 s of CPU before, against HIP-CPU's 1.6 s; tests/cpu/bench_hipcpu.cu).
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

// CHECK=race: tells the detector which CUDA thread now runs on this worker (none: emulator code).
#if defined(CUDALAB_CPU_RACE)
void race_runs(Fiber* f) {
  if (f && f->tid >= 0)
    race::run_thread(unsigned(f->tid), f->region + kPage, f->region_size - kPage);
  else
    race::t_current = nullptr;
}
#elif defined(CUDALAB_CPU_PROFILE)
// PROFILE=1: the profile build's counters need the same to tell a thread's accesses apart.
void race_runs(Fiber* f) {
  if (f && f->tid >= 0)
    profile::run_thread(f->tid, f->region + kPage, f->region_size - kPage);
  else
    profile::run_thread(-1, nullptr, 0);
}
#else
void race_runs(Fiber*) {}
#endif

// Switches from `from` to `to` (nullptr stands for the worker's scheduler). Fibers switch
// straight to the next fiber to run; only when none can run does control go back to the
// scheduler. Returns when something switches back to `from`.
void switch_to(Worker& w, Fiber* from, Fiber* to) {
  w.current = to;
  if (to && to->tid >= 0) threadIdx = w.index[to->tid];
  race_runs(to);
#if defined(CUDALAB_CPU_ASAN)
  void** fake = from ? &from->fake_stack : &w.main_fake_stack;
  if (to)
    __sanitizer_start_switch_fiber(fake, to->region + kPage, to->region_size - kPage);
  else
    __sanitizer_start_switch_fiber(fake, w.main_stack_bottom, w.main_stack_size);
#endif
#if defined(CUDALAB_CPU_OWN_SWITCH)
  cudalab_cpu_switch(from ? &from->sp : &w.scheduler_sp, to ? to->sp : w.scheduler_sp);
#else
  note_switched_from(w, ctx::jump_fcontext(to ? to->context : w.scheduler, from));
#endif
#if defined(CUDALAB_CPU_ASAN)
  __sanitizer_finish_switch_fiber(*fake, nullptr, nullptr);
#endif
  w.current = from;
}

Fiber* pick_next(Worker& w);

// The running fiber cannot go on (its thread waits, or it has no thread): run the next one.
void yield_fiber(Worker& w, Fiber* self) {
  Fiber* next = pick_next(w);
  if (next == self) {  // the barrier this thread completed released it first
    if (self->tid >= 0) threadIdx = w.index[self->tid];
    return;
  }
  switch_to(w, self, next);
}

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

Fiber* take_runner(Worker& w) {
  if (!w.idle.empty()) {
    Fiber* f = w.idle.back();
    w.idle.pop_back();
    return f;
  }
  return new_fiber(w);
}

// ---- Failures and warnings ------------------------------------------------------------------

std::string g_last_failure;  // the last launch failure's full text (control::last_failure)
control::LaunchObserver g_launch_observer = nullptr;
// A fault of the lab's host code on device memory: where run_host_code resumes (on the thread
// that runs it) and what happened. Written by the fault handler: fixed storage.
#if !defined(CUDALAB_CPU_ASAN)
thread_local sigjmp_buf* t_host_recovery = nullptr;
char g_host_fault[1024];
#endif

std::mutex g_report_mutex;
// Said once per kind of note and site, so that one kind of note at a line (which lab code can
// provoke on purpose) never silences another there.
enum NoteKind { kBarrierNote, kLockstepNote };
std::set<std::tuple<int, const char*, int>> g_warned;
bool g_quiet_notes = false;  // the kernel runner forwards notes to the report instead

void fail_launch(Launch& L, cudaError_t code, const std::string& text) {
  std::lock_guard<std::mutex> lock(L.m);
  if (L.failed.exchange(true)) return;  // the first failure is the one worth reading
  L.error = code;
  L.failure = text;
}

std::vector<std::string> g_notes;  // what warn_once said since the last take_notes()

void warn_once(NoteKind kind, const char* file, int line, const std::string& text) {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  if (!g_warned.insert({int(kind), file, line}).second) return;
  g_notes.push_back(text);
  if (!g_quiet_notes) std::fprintf(stderr, "%s\n", text.c_str());
}

std::string kernel_text(const Launch& L) {
  return std::string("kernel ") + L.site.kernel + " (launched at " + where(L.site.file, L.site.line) + ")";
}

#if defined(CUDALAB_CPU_RACE)
// The detector's reports, as notes: once per pair of lines (the report's header names them)
// between two take_notes(), so that every call of the lab that races says so (a check of its
// own fails); on stderr once per process.
std::set<std::string> g_races_noted;  // since the last take_notes()
std::set<std::string> g_races_printed;
void note_races(const std::vector<std::string>& reports) {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  for (const auto& r : reports) {
    const std::string key = r.substr(0, r.find("): "));
    if (!g_races_noted.insert(key).second) continue;
    g_notes.push_back(r);
    if (!g_quiet_notes && g_races_printed.insert(key).second) std::fprintf(stderr, "%s\n", r.c_str());
  }
}
#endif

// ---- Barriers ---------------------------------------------------------------------------

void make_ready_in_schedule_order(Worker& w, std::vector<int>& tids) {
  if (g_schedule == Schedule::Reverse) std::reverse(tids.begin(), tids.end());
  if (g_schedule == Schedule::Random) std::shuffle(tids.begin(), tids.end(), w.rng);
  for (int t : tids) {
    w.slots[t].state = kRunning;
    w.ready.push_back(w.slots[t].fiber);
  }
}

// Some threads of the block finished the kernel while the rest wait at the __syncthreads() at
// file:line. Current GPUs let the rest go on, and so does the emulator, but CUDA requires every
// thread to reach it. Say how they got out, as the code shows it: by a `return` of the kernel
// (the launch rewrite marks each one), or by running to the end past this barrier, which means
// it sits in an `if` or a loop that not every thread enters: barrier divergence.
void note_partial_barrier(Worker& w, const char* file, int line) {
  Launch& L = *w.launch;
  std::map<int, unsigned> returns;  // line of the `return;` -> threads that left by it
  unsigned past_end = 0;
  for (unsigned t = 0; t < w.n; ++t)
    if (w.slots[t].state == kExited) {
      if (w.slots[t].returned_line)
        ++returns[w.slots[t].returned_line];
      else
        ++past_end;
    }
  std::string who =
      " of " + std::to_string(w.n) + " threads of " + block_text(blockIdx, L.grid) + " of " + kernel_text(L);
  std::string text;
  if (past_end > 0) {
    text = "cudalab: note: barrier divergence at " + where(file, line) + ": " + std::to_string(past_end) + who +
           " finished the kernel without reaching this __syncthreads(), which the others waited at: it is inside "
           "an `if` (or a loop) that not every thread of the block enters. CUDA requires every thread of the "
           "block to reach each __syncthreads() (on a GPU it may hang or let the waiting threads run on early); "
           "the CPU backend let them go on. Move the __syncthreads() out of the `if`, where every thread reaches it.";
  } else {
    auto [ret_line, count] = *returns.begin();
    text = "cudalab: note: barrier divergence at " + where(file, line) + ": " + std::to_string(count) + who +
           " left by the `return` at line " + std::to_string(ret_line) +
           (returns.size() > 1 ? " (and other `return`s)" : "") +
           " before this __syncthreads(). Current GPUs let the rest go on, and so did the CPU backend, but CUDA "
           "requires every thread of the block to reach it. Put the work in `if (i < n) { ... }` instead of "
           "returning early, and keep the __syncthreads() outside it.";
  }
  warn_once(kBarrierNote, file, line, text);
}

// Every live thread is at a __syncthreads(). Release them, or explain why it is wrong.
bool release_barrier(Worker& w) {
  Launch& L = *w.launch;
  const char* file = nullptr;
  int line = 0;
  bool same = true;
  std::vector<int>& waiting = w.scratch;
  waiting.clear();
  for (unsigned t = 0; t < w.n; ++t) {
    const Slot& s = w.slots[t];
    if (s.state != kAtBarrier) continue;
    if (!file) file = s.file, line = s.line;
    // Same call site: the same line and (almost always) the very same string literal.
    else if (s.line != line || (s.file != file && std::strcmp(s.file, file) != 0))
      same = false;
    waiting.push_back(int(t));
  }
  if (!same) {
    std::map<std::pair<std::string, int>, std::vector<int>> sites;
    for (int t : waiting) sites[{w.slots[t].file, w.slots[t].line}].push_back(t);
    std::string text = "cudalab: " + block_text(blockIdx, L.grid) + " of " + kernel_text(L) +
                       ": its threads wait at different __syncthreads() calls:";
    for (auto& [site, tids] : sites)
      text += "\n    " + std::to_string(tids.size()) + " thread" + (tids.size() == 1 ? "" : "s") + " (" +
              (L.block.y == 1 && L.block.z == 1 ? "threadIdx.x " + ranges(tids)
                                                : "e.g. thread " + thread_text(L.block, tids[0])) +
              ") at " + where(site.first.c_str(), site.second);
    text +=
        "\n  Every thread of a block must reach the same __syncthreads(); on a GPU this hangs or "
        "silently corrupts shared memory. Move the barrier out of the if/else or loop that splits the threads.";
    fail_launch(L, cudaErrorLaunchFailure, text);
    return false;
  }
  if (w.exited > 0) note_partial_barrier(w, file, line);
  w.res_count = w.bar_count;
  w.res_and = w.bar_and;
  w.res_or = w.bar_or;
  w.bar_count = 0, w.bar_and = 1, w.bar_or = 0;
  w.bar_arrived = 0;
  ++w.bar_epoch;
#if defined(CUDALAB_CPU_RACE)
  race::barrier();
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::barrier();
#endif
  make_ready_in_schedule_order(w, waiting);
  return true;
}

// Nothing can run and not every live thread is at a barrier: some warp operation waits for
// lanes that will never come. Name them.
void diagnose_stall(Worker& w) {
  Launch& L = *w.launch;
  std::string text = "cudalab: " + block_text(blockIdx, L.grid) + " of " + kernel_text(L) + " can never finish:";
  bool found = false;
  for (size_t warp = 0; warp < w.warp_arrived.size() && !found; ++warp) {
    uint32_t arrived = w.warp_arrived[warp];
    if (!arrived) continue;
    int first = std::countr_zero(arrived);
    const Slot& s = w.slots[warp * 32 + first];
    uint32_t need = (s.mask | (1u << first)) & w.warp_present[warp];
    std::vector<int> waiting, returned, elsewhere;
    std::map<std::pair<std::string, int>, std::vector<int>> other_sites;
    for (int lane = 0; lane < 32; ++lane) {
      if (!(need >> lane & 1)) continue;
      const Slot& o = w.slots[warp * 32 + lane];
      if (arrived >> lane & 1)
        waiting.push_back(lane);
      else if (o.state == kExited)
        returned.push_back(lane);
      else
        other_sites[{o.file ? o.file : "?", o.line}].push_back(lane);
    }
    found = true;
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%08x", s.mask);
    text += "\n    warp " + std::to_string(warp) + ": lane" + (waiting.size() == 1 ? " " : "s ") + ranges(waiting) +
            " wait in " + op_name(s.op) + " at " + where(s.file, s.line) + " with mask " + mask + ",";
    if (!returned.empty())
      text += "\n    but lane" + std::string(returned.size() == 1 ? " " : "s ") + ranges(returned) +
              (returned.size() == 1 ? " has" : " have") + " already returned";
    for (auto& [site, lanes] : other_sites)
      text +=
          "\n    but lane" + std::string(lanes.size() == 1 ? " " : "s ") + ranges(lanes) + " wait at " +
          (w.slots[warp * 32 + lanes[0]].state == kAtBarrier ? "__syncthreads() at " : "another warp operation at ") +
          where(site.first.c_str(), site.second);
    text +=
        "\n  Every lane named in the mask must call the same warp operation; on a GPU this hangs or returns "
        "garbage. Keep the warp operation outside the `if` (let idle lanes pass 0), or pass a mask of the "
        "lanes that really take part.";
  }
  if (!found) text += " its threads wait for each other (internal: no runnable thread and no waiting warp)";
  fail_launch(L, cudaErrorLaunchFailure, text);
}

// ---- One block --------------------------------------------------------------------------

// The next fiber to run, or nullptr when the block is finished or can never finish.
Fiber* pick_next(Worker& w) {
  for (;;) {
    if (w.ready_head < w.ready.size()) return w.ready[w.ready_head++];
    w.ready.clear();
    w.ready_head = 0;
    if (w.next_unstarted < w.n && !w.aborted) return take_runner(w);
    if (w.live == 0) return nullptr;
    if (!w.turns.empty()) {  // every lane that will make its next volatile access has: go on
      w.scratch.swap(w.turns);
      w.turns.clear();
      make_ready_in_schedule_order(w, w.scratch);
      continue;
    }
    if (w.bar_arrived == w.live) {
      if (!release_barrier(w)) return nullptr;
      continue;
    }
    diagnose_stall(w);
    return nullptr;
  }
}

void prepare_launch(Worker& w, Launch& L) {
  w.launch = &L;
  w.launch_serial = L.serial;
  blockDim = L.block;
  gridDim = L.grid;
  w.n = L.threads;
  w.slots.assign(w.n, Slot{});
  w.index.resize(w.n);
  for (unsigned t = 0; t < w.n; ++t)
    w.index[t] = uint3{t % L.block.x, (t / L.block.x) % L.block.y, t / (L.block.x * L.block.y)};
  w.order.resize(w.n);
  for (unsigned t = 0; t < w.n; ++t) w.order[t] = g_schedule == Schedule::Reverse ? int(w.n - 1 - t) : int(t);
  size_t warps = (w.n + 31) / 32;
  w.warp_arrived.assign(warps, 0);
  w.warp_exited.assign(warps, 0);
  w.warp_present.assign(warps, ~0u);
  if (w.n % 32) w.warp_present.back() = (1u << (w.n % 32)) - 1;
  w.warp_syncs.assign(warps, 0);
  w.turns.reserve(w.n);
  // Fibers run the scheduling code too; growing these there would call malloc and memmove
  // on a CUDA thread's behalf, in the middle of its kernel.
  w.ready.reserve(w.n + 32);
  w.scratch.reserve(w.n + 32);
  w.idle.reserve(w.n + 1024);
  w.fibers.reserve(w.n + 1024);
#if !defined(CUDALAB_CPU_ASAN)
  if (w.smem_capacity < L.smem || !w.smem) {
    std::free(w.smem);
    w.smem_capacity = std::max<size_t>(L.smem, 64);
    w.smem = static_cast<unsigned char*>(std::aligned_alloc(128, (w.smem_capacity + 127) / 128 * 128));
  }
#endif
}

void run_block(Worker& w, Launch& L, uint64_t b) {
  if (w.launch_serial != L.serial) prepare_launch(w, L);
  ++w.block_serial;
  w.block_linear = b;
  blockIdx =
      uint3{unsigned(b % L.grid.x), unsigned((b / L.grid.x) % L.grid.y), unsigned(b / (uint64_t(L.grid.x) * L.grid.y))};
  for (auto& s : w.slots) s.state = kUnstarted, s.file = nullptr, s.line = 0, s.returned_line = 0;
  w.turns.clear();
  w.volatile_writes.clear();
  std::fill(w.warp_arrived.begin(), w.warp_arrived.end(), 0u);
  std::fill(w.warp_exited.begin(), w.warp_exited.end(), 0u);
  w.next_unstarted = 0;
  w.live = w.n;
  w.exited = 0;
  w.ready.clear();
  w.ready_head = 0;
  w.bar_arrived = 0, w.bar_count = 0, w.bar_and = 1, w.bar_or = 0;
  w.aborted = false;
  if (g_schedule == Schedule::Random) {
    // Seeded by block, not by worker, and shuffled from the identity rather than from what
    // the worker's previous block left: which worker runs which block varies, so anything
    // else would not replay.
    w.rng.seed(g_schedule_seed * 0x9E3779B97F4A7C15ull ^ (L.schedule_index << 40) ^ b);
    std::iota(w.order.begin(), w.order.end(), 0);
    std::shuffle(w.order.begin(), w.order.end(), w.rng);
  }
#if defined(CUDALAB_CPU_ASAN)
  // A block's own allocation of exactly the requested size, so overruns hit a redzone.
  w.smem = static_cast<unsigned char*>(std::malloc(L.smem));
#endif
  dynamic_smem_base = w.smem;
#if defined(CUDALAB_CPU_RACE)
  race::block_begin(b, w.n, w.smem, L.smem);
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::block_begin(b, w.n, w.smem, L.smem);
#endif

  if (Fiber* first = pick_next(w)) switch_to(w, nullptr, first);
#if defined(CUDALAB_CPU_PROFILE)
  profile::block_end();
#endif
  // Back here when no thread of the block can run: all done, or stuck (already diagnosed).

  if (w.live > 0) {
    // Aborted: the blocked threads' stacks are abandoned mid-kernel; start them afresh.
    w.aborted = true;
    for (auto& s : w.slots) {
      if ((s.state == kAtBarrier || s.state == kAtWarp || s.state == kAtTurn || s.state == kRunning) && s.fiber &&
          !s.fiber->idle) {
        Fiber* f = s.fiber;
#if defined(CUDALAB_CPU_ASAN)
        ASAN_UNPOISON_MEMORY_REGION(f->region + kPage, f->region_size - kPage);
#endif
        start_fiber(f);
        w.idle.push_back(f);
      }
    }
  }
#if defined(CUDALAB_CPU_ASAN)
  std::free(w.smem);
  w.smem = nullptr;
#endif
}

// The k-th block to start, under the schedule. Blocks of a grid may run in any order on a GPU,
// so code where one block reads what another writes (a level of a sum reading and writing
// overlapping parts of one scratch array) is a race; in order it happens to work, reversed or
// shuffled it shows. A shuffle is a keyed permutation computed per block (a Feistel network on
// the next power of two, walking the cycle back into range), so a grid of 2^24 blocks needs no
// table and a seed replays.
uint64_t block_at(const Launch& L, uint64_t k) {
  if (g_schedule == Schedule::InOrder) return k;
  if (g_schedule == Schedule::Reverse) return L.blocks - 1 - k;
  int bits = std::max(2, int(std::bit_width(L.blocks - 1)));
  bits += bits & 1;  // two equal halves
  int half = bits / 2;
  uint64_t mask = (uint64_t(1) << half) - 1;
  uint64_t key = g_schedule_seed * 0x9E3779B97F4A7C15ull ^ (L.schedule_index + 1) * 0xD1B54A32D192ED03ull;
  do {
    uint64_t left = k >> half, right = k & mask;
    for (int round = 0; round < 4; ++round) {
      uint64_t f = (right + key + uint64_t(round) * 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
      f ^= f >> 29;
      uint64_t next = left ^ (f & mask);
      left = right;
      right = next;
    }
    k = left << half | right;
  } while (k >= L.blocks);
  return k;
}

void run_blocks(Launch& L) {
  Worker& w = worker();
  for (;;) {
    if (L.failed.load(std::memory_order_relaxed)) break;
    uint64_t k = L.next.fetch_add(1, std::memory_order_relaxed);
    if (k >= L.blocks) break;
    run_block(w, L, block_at(L, k));
  }
  w.launch = nullptr;
}

// ---- The worker pool --------------------------------------------------------------------

struct Pool {
  std::mutex m;
  std::condition_variable wake, done;
  Launch* job = nullptr;
  uint64_t serial = 0;
  int busy = 0;
  int helpers_wanted = 0;
  int helpers_taken = 0;
  std::vector<std::thread> threads;

  void helper_main() {
    uint64_t seen = 0;
    for (;;) {
      Launch* L;
      {
        std::unique_lock<std::mutex> lock(m);
        wake.wait(lock, [&] { return serial != seen && helpers_taken < helpers_wanted; });
        seen = serial;
        ++helpers_taken;
        L = job;
      }
      run_blocks(*L);
      std::lock_guard<std::mutex> lock(m);
      if (--busy == 0) done.notify_all();
    }
  }
};

Pool* g_pool = nullptr;
int g_workers = 0;
std::atomic<uint64_t> g_launch_serial{0};

int configured_workers() {
  if (g_workers) return g_workers;
  int n = int(std::thread::hardware_concurrency());
  if (const char* e = std::getenv("CUDALAB_CPU_WORKERS")) n = std::atoi(e);
  g_workers = std::clamp(n, 1, 256);
  return g_workers;
}

void run_on_pool(Launch& L) {
  int helpers = int(std::min<uint64_t>(uint64_t(configured_workers() - 1), L.blocks - 1));
  if (helpers <= 0) {
    run_blocks(L);
    return;
  }
  if (!g_pool) {
    g_pool = new Pool;  // never destroyed: helpers may still be parked at exit
  }
  Pool& p = *g_pool;
  {
    std::lock_guard<std::mutex> lock(p.m);
    while (int(p.threads.size()) < helpers) {
      p.threads.emplace_back([&p] { p.helper_main(); });
      p.threads.back().detach();
    }
    p.job = &L;
    p.busy = helpers;
    p.helpers_wanted = helpers;
    p.helpers_taken = 0;
    ++p.serial;
  }
  p.wake.notify_all();
  run_blocks(L);
  std::unique_lock<std::mutex> lock(p.m);
  p.done.wait(lock, [&] { return p.busy == 0; });
}

// ---- Faults -----------------------------------------------------------------------------

#if !defined(CUDALAB_CPU_ASAN)
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
#else
void ensure_altstack() {}
#endif

bool parse_schedule(const char* spec, Schedule& mode, uint64_t& seed) {
  std::string s = spec ? spec : "";
  seed = 0;
  if (s == "in-order" || s == "inorder" || s == "default" || s.empty())
    mode = Schedule::InOrder;
  else if (s == "reverse")
    mode = Schedule::Reverse;
  else if (s.rfind("random", 0) == 0) {
    mode = Schedule::Random;
    seed = s.size() > 7 && s[6] == ':' ? std::strtoull(s.c_str() + 7, nullptr, 10) : 1;
  } else
    return false;
  return true;
}

struct Init {
  Init() {
    if (const char* s = std::getenv("CUDALAB_SCHEDULE"); s && *s) {
      if (!control::set_schedule(s))
        std::fprintf(
            stderr, "cudalab: CUDALAB_SCHEDULE=%s is not a schedule (in-order, reverse, random:SEED); using in-order\n",
            s);
    }
    protect_schedule(false);
    arena::guard_page(&g_schedule_state, sizeof g_schedule_state);
#if !defined(CUDALAB_CPU_ASAN)
    static FaultHandler handler;
#endif
  }
} g_init;

}  // namespace

// ---- The runner's controls (control.h) ------------------------------------------------------

namespace control {

bool set_schedule(const char* spec) {
  Schedule mode;
  uint64_t seed;
  if (g_schedule_state.sealed || !parse_schedule(spec, mode, seed)) return false;
  protect_schedule(true);
  g_schedule_state.mode = mode;
  g_schedule_state.seed = seed;
  protect_schedule(false);
  g_schedule_launches = 0;
  return true;
}

void seal_schedule() {
  if (g_schedule_state.sealed) return;
  protect_schedule(true);
  g_schedule_state.sealed = true;
  protect_schedule(false);
}

bool schedule_sealed() { return g_schedule_state.sealed; }

bool schedule_is(const char* spec) {
  Schedule mode;
  uint64_t seed;
  return parse_schedule(spec, mode, seed) && mode == g_schedule &&
         (mode != Schedule::Random || seed == g_schedule_seed);
}

const char* schedule_name() {
  static std::string name;
  switch (g_schedule) {
    case Schedule::InOrder: return "in-order";
    case Schedule::Reverse: return "reverse";
    default: name = "random:" + std::to_string(g_schedule_seed); return name.c_str();
  }
}

int worker_count() { return configured_workers(); }
// The pool grows to the largest count asked for and a launch wakes only as many helpers as it
// needs, so the count can change between launches.
void set_worker_count(int n) { g_workers = n > 0 ? std::clamp(n, 1, 256) : 0; }

const char* last_failure() { return g_last_failure.c_str(); }

std::vector<std::string> take_notes(bool quiet_from_now) {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  g_quiet_notes = quiet_from_now;
#if defined(CUDALAB_CPU_RACE)
  g_races_noted.clear();
#endif
  std::vector<std::string> out;
  out.swap(g_notes);
#if defined(CUDALAB_CPU_PROFILE)
  for (auto& n : profile::take_notes()) out.push_back(std::move(n));
#endif
  return out;
}

void set_launch_observer(LaunchObserver observer) { g_launch_observer = observer; }

GuardedMemory guarded_memory() {
  const arena::Guard g = arena::guard();
  return {g.site, g.ranges};
}

void prepare_for_lockdown() {
  configured_workers();
#if defined(CUDALAB_CPU_RACE)
  race::prepare_reports();
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::prepare_reports();
#endif
}

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

}  // namespace control

cudaError_t launch_kernel(const LaunchSite& site, dim3 grid, dim3 block, size_t smem, cudaStream_t, KernelBody body) {
  if (t_worker && t_worker->current) {
    detail::unsupported("dynamic parallelism (launching a kernel from inside a kernel)", site.file, site.line);
  }
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  // Above 48 KiB of dynamic shared memory a GPU needs the kernel's attribute raised first, and
  // never gives more than its opt-in limit: past either it refuses the launch (invalid argument).
  const bool smem_refused = smem > detail::kMaxDynamicSmemOptin || smem > detail::dynamic_smem_limit(site.kernel);
  const bool refused = threads == 0 || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
                       blocks == 0 || grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535 || smem_refused;
  // A refused launch is recorded too, as a GPU's launch record has it: the checker explains the
  // refusal from the grid and block that were asked for.
  if (refused && g_launch_observer) g_launch_observer(site.kernel, grid, block, smem);
  if (threads == 0 || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64 || blocks == 0 ||
      grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
    detail::set_last_error(cudaErrorInvalidConfiguration);
    return cudaErrorInvalidConfiguration;
  }
  if (smem_refused) {
    detail::set_last_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  if (cudaError_t lost = detail::device_failure(); lost != cudaSuccess) {
    detail::set_last_error(lost);  // a kernel failed before: the context is lost, nothing more runs
    return lost;
  }
  ensure_altstack();
  // Launches from several host threads run one after another, as on CUDA's default stream.
  static std::mutex launch_mutex;
  std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
  if (g_launch_observer) g_launch_observer(site.kernel, grid, block, smem);
  Launch L;
  L.site = site;
  L.grid = grid;
  L.block = block;
  L.smem = smem;
  L.body = body;
  L.blocks = blocks;
  L.threads = unsigned(threads);
  L.serial = ++g_launch_serial;
  L.schedule_index = g_schedule_launches++;
  // Host code's own threadIdx etc. are untouched by the kernel: save and restore them.
  uint3 saved_t = threadIdx, saved_b = blockIdx;
  dim3 saved_bd = blockDim, saved_gd = gridDim;
  detail::kernels_begin();  // device memory, closed to the lab's host code, is the kernel's
#if defined(CUDALAB_CPU_RACE)
  race::launch_begin(grid.x, grid.y, block.x, block.y, block.z);
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::launch_begin(blocks, L.threads, L.body.obj);
#endif
  run_on_pool(L);
#if defined(CUDALAB_CPU_RACE)
  {
    std::vector<std::string> races = race::launch_end(kernel_text(L));
    // A launch that faulted is reported by its fault. The detector's hooks run before each access,
    // so it saw the faulting stores as if they had happened: its notes would be about writes that
    // never were (two blocks "racing" on the wild address itself).
    if (!L.failed) note_races(races);
  }
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::launch_end(site.kernel, site.file, site.line, grid.x, grid.y, grid.z, L.threads, smem);
#endif
  const std::string slack = detail::kernels_end();
  threadIdx = saved_t, blockIdx = saved_b, blockDim = saved_bd, gridDim = saved_gd;
  if (!slack.empty())
    fail_launch(L, cudaErrorIllegalAddress,
                "cudalab: " + kernel_text(L) + " wrote to memory " + slack +
                    ": an illegal address (cudaErrorIllegalAddress on a GPU). Check the index against the array's "
                    "size; rebuild with CHECK=asan to see the exact line.");
  if (L.failed) {
    std::lock_guard<std::mutex> lock(L.m);  // written by whichever thread found it
    g_last_failure = L.failure;
    if (!g_quiet_notes) std::fprintf(stderr, "%s\n", L.failure.c_str());  // the runner reports it itself
    detail::set_pending_error(L.error, L.failure);
    return L.error;
  }
  return cudaSuccess;
}

int block_barrier(int op, int predicate, const char* file, int line) {
  Worker* w = t_worker;
  Fiber* f = w ? w->current : nullptr;
  if (!f) return predicate;  // host code: there is nothing to wait for
  Slot& s = w->slots[f->tid];
  s.state = kAtBarrier;
  s.file = file;
  s.line = line;
  s.op = uint8_t(op);
  ++w->bar_arrived;
  w->bar_count += predicate != 0;
  w->bar_and &= predicate != 0;
  w->bar_or |= predicate != 0;
  yield_fiber(*w, f);
  switch (op) {
    case 1: return w->res_count;
    case 2: return w->res_and;
    case 3: return w->res_or;
    default: return 0;
  }
}

unsigned active_mask() {
  Worker* w = t_worker;
  Fiber* f = w ? w->current : nullptr;
  if (!f) return 1;
  int warp = f->tid >> 5;
  return w->warp_present[warp] & ~w->warp_exited[warp];
}

static uint64_t warp_result(Worker& w, int warp, int lane, uint32_t group) {
  const Slot& s = w.slots[warp * 32 + lane];
  const Slot* base = &w.slots[warp * 32];
  int width = (s.width <= 0 || s.width > 32) ? 32 : s.width;
  int seg = lane / width * width;
  int src = lane;
  uint32_t need = (s.mask | (1u << lane)) & w.warp_present[warp];
  switch (s.op) {
    case kShflIdx: src = seg + ((s.arg % width) + width) % width; break;
    case kShflUp: src = (lane - seg) >= s.arg ? lane - s.arg : lane; break;
    case kShflDown: src = (lane - seg) + s.arg < width ? lane + s.arg : lane; break;
    case kShflXor:
      src = lane ^ s.arg;
      if (src < 0 || src >= seg + width || src > 31) src = lane;
      break;
    case kBallot: {
      uint64_t r = 0;
      for (int l = 0; l < 32; ++l)
        if ((need >> l & 1) && base[l].value) r |= 1ull << l;
      return r;
    }
    case kSyncwarp: return 0;
    case kMatchAny:
    case kMatchAll: {
      uint64_t r = 0;
      bool all = true;
      for (int l = 0; l < 32; ++l)
        if (need >> l & 1) {
          if (base[l].value == s.value)
            r |= 1ull << l;
          else
            all = false;
        }
      return s.op == kMatchAny ? r : (all ? need : 0);
    }
    default: {
      bool is_signed = s.value >> 40 & 1;
      int64_t acc = 0;
      bool first = true;
      for (int l = 0; l < 32; ++l) {
        if (!(need >> l & 1)) continue;
        uint32_t u = uint32_t(base[l].value);
        int64_t v = is_signed ? int64_t(int32_t(u)) : int64_t(u);
        if (first) {
          acc = v;
          first = false;
          continue;
        }
        switch (s.op) {
          case kReduceAdd:
            acc = int64_t(uint32_t(acc + v));
            if (is_signed) acc = int32_t(uint32_t(acc));
            break;
          case kReduceMin: acc = std::min(acc, v); break;
          case kReduceMax: acc = std::max(acc, v); break;
          case kReduceAnd: acc &= v; break;
          case kReduceOr: acc |= v; break;
          case kReduceXor: acc ^= v; break;
        }
      }
      return uint64_t(uint32_t(acc));
    }
  }
  // A lane outside the group holds no fresh value; reading it is undefined on a GPU.
  return (group >> src & 1) ? base[src].value : s.value;
}

uint64_t warp_collective(int op, unsigned mask, uint64_t value, int arg, int width, const char* file, int line) {
  Worker* w = t_worker;
  Fiber* f = w ? w->current : nullptr;
  if (!f) {  // host code: a warp of one
    if (op == kBallot) return value ? 1 : 0;
    if (op == kMatchAny || op == kMatchAll) return 1;
    return op >= kReduceAdd ? uint64_t(uint32_t(value)) : value;
  }
  int tid = f->tid, warp = tid >> 5, lane = tid & 31;
  Slot& s = w->slots[tid];
  s.state = kAtWarp;
  s.op = uint8_t(op);
  s.mask = mask;
  s.value = value;
  s.arg = arg;
  s.width = width;
  s.file = file;
  s.line = line;
  uint32_t& arrived = w->warp_arrived[warp];
  arrived |= 1u << lane;
  // Complete when every lane that the arriving lanes name has arrived.
  uint32_t group = 0;
  uint32_t pending = (mask | (1u << lane)) & w->warp_present[warp];
  bool complete = (arrived & pending) == pending;
  while (complete && pending) {
    int l = std::countr_zero(pending);
    pending &= pending - 1;
    if (!(arrived >> l & 1)) {
      complete = false;
      break;
    }
    if (group >> l & 1) continue;
    group |= 1u << l;
    pending |= (w->slots[warp * 32 + l].mask | (1u << l)) & w->warp_present[warp] & ~group;
  }
  if (complete) {
    for (uint32_t g = group; g; g &= g - 1) {
      int l = std::countr_zero(g);
      w->slots[warp * 32 + l].result = warp_result(*w, warp, l, group);
    }
    arrived &= ~group;
    ++w->warp_syncs[warp];
#if defined(CUDALAB_CPU_RACE)
    race::warp_sync(unsigned(warp));
#endif
    std::vector<int>& others = w->scratch;
    others.clear();
    for (uint32_t g = group & ~(1u << lane); g; g &= g - 1) others.push_back(warp * 32 + std::countr_zero(g));
    make_ready_in_schedule_order(*w, others);
    s.state = kRunning;
  } else {
    yield_fiber(*w, f);
  }
  return s.result;
}

void kernel_return(const char*, int line) {
  Worker* w = t_worker;
  if (w && w->current && w->current->tid >= 0) w->slots[w->current->tid].returned_line = line;
}

void warp_turn(const volatile void* addr, bool write, const char* file, int line) {
  Worker* w = t_worker;
  Fiber* f = w ? w->current : nullptr;
  if (!f) return;  // host code
  int tid = f->tid;
  Slot& s = w->slots[tid];
  s.state = kAtTurn;
  s.file = file;
  s.line = line;
  w->turns.push_back(tid);
  yield_fiber(*w, f);
  // This lane's turn: the access happens right after this returns, before any other lane runs.
#if defined(CUDALAB_CPU_RACE)
  if (race::t_current) race::t_current->turn = addr;  // lanes in lockstep: not a race (the note says it)
#endif
  if (w->launch->lockstep_noted.load(std::memory_order_relaxed)) return;
  int warp = tid >> 5;
  uint64_t epoch = w->bar_epoch << 32 | w->warp_syncs[warp];
  if (write) {
    w->volatile_writes[addr] = {tid, epoch};
    return;
  }
  auto it = w->volatile_writes.find(addr);
  if (it == w->volatile_writes.end() || it->second.tid == tid || it->second.tid >> 5 != warp ||
      it->second.epoch != epoch)
    return;
  Launch& L = *w->launch;
  L.lockstep_noted = true;
  const char* at_file = file ? file : L.site.file;
  int at_line = file ? line : L.site.line;
  warn_once(kLockstepNote, at_file, at_line,
            "cudalab: note: warp-synchronous code: in " + kernel_text(L) + ", lane " + std::to_string(tid & 31) +
                " of warp " + std::to_string(warp) + " of " + block_text(blockIdx, L.grid) + " read a value lane " +
                std::to_string(it->second.tid & 31) + " wrote through the volatile pointer made at " +
                where(at_file, at_line) +
                ", with no __syncwarp() between. This relies on the lanes of a warp running in lockstep: GPUs do "
                "in practice, and the CPU backend ran them so, but CUDA has not promised it since Volta. Put "
                "__syncwarp() between the steps: `v += s[t + 16]; __syncwarp(); s[t] = v; __syncwarp();`.");
}

void detail::unsupported(const char* feature, const char* file, int line) {
  std::fprintf(stderr, "cudalab: %s: the CPU backend cannot run %s. Run this lab on a GPU (BACKEND=cuda).\n",
               where(file, line).c_str(), feature);
  std::exit(2);
}

void detail::stop_running_thread(cudaError_t code, const std::string& what) {
  Worker* w = t_worker;
  if (!w || !w->current || !w->launch) return;
  fail_launch(*w->launch, code,
              "cudalab: " + kernel_text(*w->launch) + ": thread " + thread_text(w->launch->block, w->current->tid) +
                  " of " + block_text(blockIdx, w->launch->grid) + " " + what);
  // The thread cannot go on; park it forever (the block is abandoned, its stacks started afresh).
  w->slots[w->current->tid].state = kAtWarp;
  yield_fiber(*w, w->current);
}

void trap(const char* file, int line) {
  detail::stop_running_thread(cudaErrorLaunchFailure, "called __trap() at " + where(file, line));
  std::fprintf(stderr, "cudalab: __trap() at %s\n", where(file, line).c_str());
  std::abort();
}

}  // namespace cudalab_cpu
