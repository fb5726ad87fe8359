// cudalab CPU backend: one block from its start to its end on a worker, which fiber runs next,
// and the order a launch's blocks start in (emulator_internal.h: the emulator's other files).
#include "emulator_internal.h"  // (with race.h or profile.h in those builds)

#include <pthread.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <numeric>

#if defined(CUDALAB_CPU_ASAN)
#include <sanitizer/asan_interface.h>
#endif

// The built-in variables and the dynamic shared area, per worker (include/cuda_runtime.h).
__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;
__thread unsigned char* cudalab_cpu::dynamic_smem_base;

namespace cudalab_cpu::emulator {

__thread Worker* t_worker = nullptr;

namespace {

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

}  // namespace

namespace {

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

}  // namespace

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

}  // namespace cudalab_cpu::emulator
