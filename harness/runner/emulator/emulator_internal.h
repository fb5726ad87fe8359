// cudalab CPU backend: what the emulator's own files share. Internal to the emulator (its .cpp
// files alone include it): the runtime shim uses emulator.h, the kernel runner control.h, lab code
// include/cuda_runtime.h.
//
// The emulator, file by file (README.md says more):
//   fibers.cpp       CUDA threads on stackful fibers, the switch between them, the runner loop
//   block.cpp        one block from start to end: which fiber runs next, the block order
//   barriers.cpp     __syncthreads(): releasing a barrier, or saying why it cannot be
//   warps.cpp        warp operations (shuffles, votes, match, reduce) and volatile lockstep
//   worker_pool.cpp  worker OS threads (one per core) taking whole blocks
//   launch.cpp       a kernel launch: its limits, its run, its failure
//   failures.cpp     failing a launch, notes said once, how they name kernels, blocks, threads
//   faults.cpp       segmentation faults: inside a kernel, and the lab's host code on device memory
//   schedule.cpp     the schedule (in order, reversed, random) on its read-only page
//   controls.cpp     the rest of the kernel runner's controls (control.h)
#pragma once
#include "control.h"
#include "emulator.h"
#if defined(CUDALAB_CPU_RACE)
#include "race.h"
#endif
#if defined(CUDALAB_CPU_PROFILE)
#include "profile.h"
#endif

#include <atomic>
#include <boost/context/detail/fcontext.hpp>
#include <cstdint>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#if defined(CUDALAB_CPU_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__) && !defined(CUDALAB_CPU_BOOST_SWITCH)
// Fibers switch with the six-register swap in fibers.cpp; elsewhere with Boost.Context.
#define CUDALAB_CPU_OWN_SWITCH 1
// Saves the callee-saved registers on the current stack, stores the stack pointer in *from,
// loads `to` and restores what that stack saved. A new fiber's stack is laid out so that the
// final `ret` enters fiber_main (see start_fiber).
extern "C" void cudalab_cpu_switch(void** from, void* to);
#endif

namespace cudalab_cpu::emulator {

namespace ctx = boost::context::detail;

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

// ---- The schedule (schedule.cpp) ----------------------------------------------------------
enum class Schedule { InOrder, Reverse, Random };
// The schedule sits alone on a page that is read-only except inside set_schedule and
// seal_schedule: lab code in the same process that walks memory from its own variables to the
// emulator's faults instead of turning the race probe off.
struct alignas(4096) ScheduleState {
  Schedule mode = Schedule::InOrder;
  uint64_t seed = 0;
  bool sealed = false;
};
extern ScheduleState g_schedule_state;
// What the scheduler reads.
inline const Schedule& g_schedule = g_schedule_state.mode;
inline const uint64_t& g_schedule_seed = g_schedule_state.seed;
extern std::atomic<uint64_t> g_schedule_launches;  // launches since the schedule was set: seeds replay

// ---- A worker: the block it runs ----------------------------------------------------------
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

// The worker this OS thread is (nullptr until it first runs a block). __thread, not
// thread_local: read at every barrier from other files, with no wrapper call.
extern __thread Worker* t_worker;

// ---- Fibers (fibers.cpp) ------------------------------------------------------------------
size_t stack_bytes();  // a CUDA thread's stack (CUDALAB_CPU_STACK_KB)
constexpr size_t kPage = 4096;  // each stack's guard page
// A fiber made ready to run its first thread from the top of its stack.
void start_fiber(Fiber* f);
// An idle runner, or a new one.
Fiber* take_runner(Worker& w);

// ---- One block (block.cpp) ----------------------------------------------------------------
// This OS thread takes blocks of the launch until none is left.
void run_blocks(Launch& L);

// ---- Barriers (barriers.cpp) --------------------------------------------------------------
// The threads `tids` may run again, queued in the schedule's order.
void make_ready_in_schedule_order(Worker& w, std::vector<int>& tids);
// Every live thread is at a __syncthreads(). Release them, or fail the launch saying why.
bool release_barrier(Worker& w);
// Nothing can run and not every live thread is at a barrier: fail the launch naming the lanes.
void diagnose_stall(Worker& w);

// ---- The worker pool (worker_pool.cpp) ----------------------------------------------------
extern int g_workers;  // 0: not yet decided (control::set_worker_count)
int configured_workers();
// Runs every block of the launch on this thread and as many helpers as it needs.
void run_on_pool(Launch& L);

// ---- Faults (faults.cpp) ------------------------------------------------------------------
// This OS thread's alternate signal stack, for the fault handler to run on.
void ensure_altstack();

// ---- Failures and notes (failures.cpp) ----------------------------------------------------
// The first failure of a launch is the one it reports.
void fail_launch(Launch& L, cudaError_t code, const std::string& text);
// Said once per kind of note and site, so that one kind of note at a line (which lab code can
// provoke on purpose) never silences another there.
enum NoteKind { kBarrierNote, kLockstepNote };
void warn_once(NoteKind kind, const char* file, int line, const std::string& text);
#if defined(CUDALAB_CPU_RACE)
// The detector's reports of a launch, as notes.
void note_races(const std::vector<std::string>& reports);
extern std::set<std::string> g_races_noted;  // since the last take_notes()
#endif
extern std::string g_last_failure;  // the last launch failure's full text (control::last_failure)
extern control::LaunchObserver g_launch_observer;
extern std::mutex g_report_mutex;  // guards the notes
extern std::vector<std::string> g_notes;  // what warn_once said since the last take_notes()
extern bool g_quiet_notes;  // the kernel runner forwards notes to the report instead
// How messages name things: "kernel k (launched at f.cu:12)", "block (1,0,0)", "3", "f.cu:12".
std::string kernel_text(const Launch& L);
std::string block_text(const uint3& b, const dim3& grid);
std::string thread_text(const dim3& block, int tid);
std::string where(const char* file, int line);

// ---- The hot path (inline: a thread's every wait runs it) ---------------------------------
// A wait at a barrier or a warp operation is block_barrier or warp_collective (barriers.cpp,
// warps.cpp), then yield_fiber, pick_next and the switch. While they were in one file GCC saw
// them whole (it inlined the switch, and a call clobbered only the registers its callee used);
// as calls between files a 256-thread tree sum took 5 to 7% more CPU, so they are here, inline.
#if !defined(CUDALAB_CPU_OWN_SWITCH)
// Whoever switched here passed itself (nullptr: the scheduler); remember where it stopped.
inline void note_switched_from(Worker& w, ctx::transfer_t t) {
  if (t.data)
    static_cast<Fiber*>(t.data)->context = t.fctx;
  else
    w.scheduler = t.fctx;
}
#endif

// CHECK=race: tells the detector which CUDA thread now runs on this worker (none: emulator code).
#if defined(CUDALAB_CPU_RACE)
inline void race_runs(Fiber* f) {
  if (f && f->tid >= 0)
    race::run_thread(unsigned(f->tid), f->region + kPage, f->region_size - kPage);
  else
    race::t_current = nullptr;
}
#elif defined(CUDALAB_CPU_PROFILE)
// PROFILE=1: the profile build's counters need the same to tell a thread's accesses apart.
inline void race_runs(Fiber* f) {
  if (f && f->tid >= 0)
    profile::run_thread(f->tid, f->region + kPage, f->region_size - kPage);
  else
    profile::run_thread(-1, nullptr, 0);
}
#else
inline void race_runs(Fiber*) {}
#endif

// Switches from `from` to `to` (nullptr stands for the worker's scheduler). Fibers switch
// straight to the next fiber to run; only when none can run does control go back to the
// scheduler. Returns when something switches back to `from`.
inline void switch_to(Worker& w, Fiber* from, Fiber* to) {
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

// The next fiber to run, or nullptr when the block is finished or can never finish.
inline Fiber* pick_next(Worker& w) {
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

// The running fiber cannot go on (its thread waits, or it has no thread): run the next one.
inline void yield_fiber(Worker& w, Fiber* self) {
  Fiber* next = pick_next(w);
  if (next == self) {  // the barrier this thread completed released it first
    if (self->tid >= 0) threadIdx = w.index[self->tid];
    return;
  }
  switch_to(w, self, next);
}

}  // namespace cudalab_cpu::emulator
