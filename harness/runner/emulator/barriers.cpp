// cudalab CPU backend: __syncthreads(): a barrier's release in the schedule's order, or why it
// cannot be released (emulator_internal.h: the emulator's other files).
#include "emulator_internal.h"  // (with race.h or profile.h in those builds)

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>

namespace cudalab_cpu::emulator {

namespace {

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

}  // namespace

void make_ready_in_schedule_order(Worker& w, std::vector<int>& tids) {
  if (g_schedule == Schedule::Reverse) std::reverse(tids.begin(), tids.end());
  if (g_schedule == Schedule::Random) std::shuffle(tids.begin(), tids.end(), w.rng);
  for (int t : tids) {
    w.slots[t].state = kRunning;
    w.ready.push_back(w.slots[t].fiber);
  }
}

namespace {

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

}  // namespace

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

}  // namespace cudalab_cpu::emulator

// ---- What lab code calls (include/cuda_runtime.h) -------------------------------------------
namespace cudalab_cpu {

using namespace emulator;

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

void kernel_return(const char*, int line) {
  Worker* w = t_worker;
  if (w && w->current && w->current->tid >= 0) w->slots[w->current->tid].returned_line = line;
}

}  // namespace cudalab_cpu
