// cudalab CPU backend: warp operations (__syncwarp, shuffles, votes, match, reduce) as scheduler
// waits, and volatile accesses in warp lockstep (emulator_internal.h: the emulator's other files).
#include "emulator_internal.h"  // (with race.h in the race build)

#include <algorithm>
#include <bit>

// ---- What lab code calls (include/cuda_runtime.h) -------------------------------------------
namespace cudalab_cpu {

using namespace emulator;

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

}  // namespace cudalab_cpu
