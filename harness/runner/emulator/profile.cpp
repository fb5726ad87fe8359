// cudalab CPU backend: the profile build's counters (PROFILE=1; see profile.h for what it counts).
//
// Each worker keeps its running block's pending warp requests; they are complete once every lane
// has passed the next __syncthreads() (or the block has ended), and are then reduced to per-line
// sums. A request is keyed by (instruction, warp, how many times each lane had executed that
// instruction since the last barrier): lanes that skip an `if` do not make requests, so a `%`
// stride shows as few active lanes, and a loop's iterations stay apart.
#if defined(CUDALAB_CPU_PROFILE)
#include "profile.h"

#include <cuda_runtime.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <unordered_map>

#include "source_line.h"

extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
extern __thread unsigned char* dynamic_smem_base;

namespace cudalab_cpu::profile {
namespace {

enum Kind : uint8_t { kGlobalLoad, kGlobalStore, kGlobalAtomic, kSharedLoad, kSharedStore, kSharedAtomic, kKinds };
const char* const kKindNames[kKinds] = {"gload", "gstore", "gatomic", "sload", "sstore", "satomic"};
bool is_shared(Kind k) { return k >= kSharedLoad; }

// What a line's requests added up to (counts of sampled blocks, scaled to the launch at its end).
struct Sums {
  double requests = 0, lanes = 0, lanes_possible = 0;  // active lanes against the warps' lanes
  double units = 0, ideal_units = 0;  // global: 32-byte sectors; shared: wavefronts; and the fewest possible
  double bytes = 0;  // bytes the lanes asked for
  void add(const Sums& o, double scale) {
    requests += o.requests * scale, lanes += o.lanes * scale, lanes_possible += o.lanes_possible * scale;
    units += o.units * scale, ideal_units += o.ideal_units * scale, bytes += o.bytes * scale;
  }
};
using LineKey = std::pair<uintptr_t, Kind>;  // (instruction, kind)

struct Lane {
  uintptr_t addr;
  uint32_t size;
};
struct Request {
  uintptr_t pc;
  Kind kind;
  unsigned warp;
  uint32_t mask = 0;
  std::vector<Lane> lanes;
};
struct RequestKey {
  uintptr_t pc;
  uint64_t warp_occurrence;  // warp << 40 | occurrence
  bool operator==(const RequestKey& o) const { return pc == o.pc && warp_occurrence == o.warp_occurrence; }
};
struct RequestHash {
  size_t operator()(const RequestKey& k) const {
    return std::hash<uint64_t>()(k.pc * 0x9E3779B97F4A7C15ull ^ k.warp_occurrence);
  }
};

// A thread's latest access: where its lane entry is, and where it ended.
struct Last {
  uint64_t flushes = 0;
  size_t request = 0, lane = 0;
  uintptr_t pc = 0, end = 0;
  Kind kind = kKinds;
};

// The running block of a worker. Reached through a plain __thread pointer (a thread_local with a
// constructor costs a guard test at every hook).
struct Block {
  bool sampled = false;
  unsigned threads = 0;
  uintptr_t smem_lo = 0, smem_hi = 0, tls_lo = 0, tls_hi = 0;
  uintptr_t builtins[5] = {};  // threadIdx, blockIdx, blockDim, gridDim, dynamic_smem_base: not the lab's data
  std::unordered_map<uint64_t, uint32_t> occurrences;  // (instruction, thread) -> executions since the barrier
  std::unordered_map<RequestKey, size_t, RequestHash> index;
  std::vector<Request> pending;
  size_t pending_lanes = 0;
  std::map<LineKey, Sums> sums;  // this launch's, from the blocks this worker ran
  std::unordered_map<uintptr_t, uint64_t> atomics;  // global address -> atomic lane operations
  uint64_t barriers = 0;
  uintptr_t static_lo = UINTPTR_MAX, static_hi = 0;  // the static __shared__ bytes touched
  uint64_t flushes = 1;  // pending requests reduced so far (a Last from before is stale)
  std::vector<Last> last;  // per thread: its latest access, which the next may continue
};
thread_local Block t_block_storage;
__thread Block* t_blk = nullptr;
__thread int t_tid = -1;
__thread uintptr_t t_stack_lo = 0, t_stack_bytes = 0;

// The launch: which blocks are sampled, and what the workers' blocks added up to.
uint64_t g_blocks = 1, g_stride = 1;
constexpr uint64_t kAllBlocksUpTo = 64, kSampleTarget = 64;
bool sampled(uint64_t linear) { return linear < 8 || linear % g_stride == 0; }
std::mutex g_mutex;
std::map<LineKey, Sums> g_launch_sums;
std::unordered_map<uintptr_t, uint64_t> g_launch_atomics;
uint64_t g_launch_barriers = 0, g_launch_sampled = 0;
uintptr_t g_static_bytes = 0;
// The kernel's arguments: copies on the launching host thread's stack, near its body object.
constexpr uintptr_t kArgumentWindow = 4096;
uintptr_t g_arguments = 0;

// A kernel (by launch site) over the launches of one call of the lab.
struct Kernel {
  std::string name, file;
  int line = 0;
  uint64_t launches = 0;
  double blocks = 0, sampled_blocks = 0;
  uint64_t largest_grid = 0;  // blocks of its largest launch
  unsigned threads_per_block = 0;
  size_t dynamic_smem = 0, static_smem = 0;
  double barriers = 0;  // block-wide barriers, over all its blocks
  double atomic_ops = 0, atomic_addresses = 0, atomic_most_on_one = 0;
  std::map<LineKey, Sums> lines;
};
std::vector<Kernel> g_kernels;

size_t g_tls_bytes = 0;
int tls_of_main(dl_phdr_info* info, size_t, void* out) {
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) {
      const size_t align = std::max<size_t>(1, info->dlpi_phdr[i].p_align);
      *static_cast<size_t*>(out) = (info->dlpi_phdr[i].p_memsz + align - 1) / align * align;
    }
  return 1;  // the first object is the program itself
}

// The static TLS block (where the lab's __shared__ arrays live) ends at the thread pointer on x86-64.
void find_static_tls(Block& k) {
  static std::once_flag once;
  std::call_once(once, [] { dl_iterate_phdr(tls_of_main, &g_tls_bytes); });
  auto tp = reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
  auto probe = reinterpret_cast<uintptr_t>(&threadIdx);
  asm("" : "+r"(tp), "+r"(probe));  // plain numbers: GCC may fold a TLS comparison (race.cpp says why)
  if (g_tls_bytes && probe >= tp - g_tls_bytes && probe < tp) k.tls_lo = tp - g_tls_bytes, k.tls_hi = tp;
  k.builtins[0] = reinterpret_cast<uintptr_t>(&threadIdx);
  k.builtins[1] = reinterpret_cast<uintptr_t>(&blockIdx);
  k.builtins[2] = reinterpret_cast<uintptr_t>(&blockDim);
  k.builtins[3] = reinterpret_cast<uintptr_t>(&gridDim);
  k.builtins[4] = reinterpret_cast<uintptr_t>(&dynamic_smem_base);
}

// ---- One request, reduced ---------------------------------------------------------------------
// Global memory: the distinct 32-byte sectors its lanes touch, against the fewest that could hold
// the distinct bytes they asked for (a warp reading 32 consecutive floats: 4 and 4).
Sums reduce_global(const Request& r) {
  std::vector<std::pair<uintptr_t, uintptr_t>> spans;
  for (const Lane& l : r.lanes) spans.push_back({l.addr, l.addr + l.size});
  std::sort(spans.begin(), spans.end());
  double bytes = 0, sectors = 0;
  uintptr_t end = 0, last_sector = UINTPTR_MAX;
  for (auto [lo, hi] : spans) {
    lo = std::max(lo, end);
    if (lo < hi) bytes += double(hi - lo);
    end = std::max(end, hi);
    for (uintptr_t s = lo >> 5; lo < hi && s <= (hi - 1) >> 5; ++s)
      if (s != last_sector) ++sectors, last_sector = s;
  }
  Sums x;
  x.units = sectors;
  x.ideal_units = std::max(1.0, double((uint64_t(bytes) + 31) / 32));
  return x;
}

// Shared memory: 32 banks of 4-byte words; lanes reading one word share it (a broadcast), lanes
// reaching different words of one bank wait for each other. Wavefronts: the most distinct words
// in any bank, and at least the words / 32 (a request of 16 bytes a lane needs 4).
Sums reduce_shared(const Request& r) {
  std::vector<uintptr_t> words;
  for (const Lane& l : r.lanes)
    for (uintptr_t w = l.addr >> 2; w <= (l.addr + l.size - 1) >> 2; ++w) words.push_back(w);
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  unsigned per_bank[32] = {};
  unsigned most = 0;
  for (uintptr_t w : words) most = std::max(most, ++per_bank[w & 31]);
  Sums x;
  x.ideal_units = double((words.size() + 31) / 32);
  x.units = std::max<double>(most, x.ideal_units);
  return x;
}

void flush() {
  Block& k = *t_blk;
  for (const Request& r : k.pending) {
    Sums x = is_shared(r.kind) ? reduce_shared(r) : reduce_global(r);
    x.requests = 1;
    x.lanes = __builtin_popcount(r.mask);
    x.lanes_possible = std::min(32u, k.threads - r.warp * 32);
    for (const Lane& l : r.lanes) x.bytes += l.size;
    k.sums[{r.pc, r.kind}].add(x, 1);
    if (r.kind == kGlobalAtomic)
      for (const Lane& l : r.lanes) ++k.atomics[l.addr];
  }
  ++k.flushes;
  k.pending.clear();
  k.index.clear();
  k.occurrences.clear();
  k.pending_lanes = 0;
}

// Every instrumented access of lab code comes here; a sampled block's CUDA threads' count.
inline void access(const volatile void* p, size_t size, bool write, bool atomic, uintptr_t pc) {
  if (t_tid < 0 || !t_blk || !t_blk->sampled || size == 0) return;
  Block& k = *t_blk;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  if (addr - t_stack_lo < t_stack_bytes) return;  // its own stack: registers and local memory
  for (uintptr_t b : k.builtins)
    if (addr - b < sizeof(uint3)) return;
  if (addr - g_arguments < 2 * kArgumentWindow) return;
  const bool dynamic = addr >= k.smem_lo && addr < k.smem_hi;
  const bool shared = dynamic || (addr >= k.tls_lo && addr < k.tls_hi);
  if (shared && !dynamic) k.static_lo = std::min(k.static_lo, addr), k.static_hi = std::max(k.static_hi, addr + size);
  const Kind kind = Kind((shared ? kSharedLoad : kGlobalLoad) + (atomic ? 2 : write ? 1 : 0));
  const unsigned tid = unsigned(t_tid), warp = tid >> 5;
  // g++ may split one float4 load into four 4-byte loads (one per component used): a GPU's
  // compiler issues one 16-byte load. An access that continues this thread's previous one, of the
  // same kind, a few instructions later, within one aligned 16 bytes, joins it.
  Last& last = k.last[tid];
  if (last.flushes == k.flushes && last.kind == kind && addr == last.end && pc - last.pc < 256) {
    Lane& l = k.pending[last.request].lanes[last.lane];
    if ((l.addr & ~uintptr_t(15)) == ((addr + size - 1) & ~uintptr_t(15))) {
      l.size += uint32_t(size);
      last.end += size, last.pc = pc;
      return;
    }
  }
  const uint32_t occurrence = k.occurrences[pc * 1024 + tid]++;
  const RequestKey key{pc, uint64_t(warp) << 40 | occurrence};
  auto [it, fresh] = k.index.try_emplace(key, k.pending.size());
  if (fresh) k.pending.push_back(Request{pc, kind, warp, 0, {}});
  Request& r = k.pending[it->second];
  r.mask |= 1u << (tid & 31);
  r.lanes.push_back({addr, uint32_t(size)});
  last = Last{k.flushes, it->second, r.lanes.size() - 1, pc, addr + size, kind};
  // A block that never reaches a barrier keeps everything pending: past a bound, reduce what there
  // is (a request split in two then counts its lanes twice; estimates, said so).
  if (++k.pending_lanes > (1u << 20)) flush();
}

void merge_block() {
  Block& k = *t_blk;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& [key, s] : k.sums) g_launch_sums[key].add(s, 1);
  for (auto& [a, n] : k.atomics) g_launch_atomics[a] += n;
  g_launch_barriers += k.barriers;
  ++g_launch_sampled;
  if (k.static_hi > k.static_lo) g_static_bytes = std::max(g_static_bytes, k.static_hi - k.static_lo);
  k.sums.clear();
  k.atomics.clear();
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

}  // namespace

void launch_begin(uint64_t blocks, unsigned, const void* host_frame) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_arguments = reinterpret_cast<uintptr_t>(host_frame) - kArgumentWindow;
  g_blocks = blocks;
  g_stride = blocks <= kAllBlocksUpTo ? 1 : blocks / kSampleTarget;
  g_launch_sums.clear();
  g_launch_atomics.clear();
  g_launch_barriers = g_launch_sampled = 0;
  g_static_bytes = 0;
}

void block_begin(uint64_t linear, unsigned threads, const void* smem, size_t smem_bytes) {
  t_tid = -1;
  t_blk = &t_block_storage;
  Block& k = *t_blk;
  if (!k.tls_hi) find_static_tls(k);
  k.sampled = sampled(linear);
  k.threads = threads;
  if (k.last.size() < threads) k.last.resize(threads);
  ++k.flushes;
  k.smem_lo = reinterpret_cast<uintptr_t>(smem);
  k.smem_hi = k.smem_lo + smem_bytes;
  k.barriers = 0;
  k.static_lo = UINTPTR_MAX, k.static_hi = 0;
}

void block_end() {
  t_tid = -1;
  if (!t_blk || !t_blk->sampled) return;
  flush();
  merge_block();
}

void run_thread(int tid, const void* stack_lo, size_t stack_bytes) {
  t_tid = tid;
  t_stack_lo = reinterpret_cast<uintptr_t>(stack_lo);
  t_stack_bytes = stack_bytes;
}

void barrier() {
  if (!t_blk || !t_blk->sampled) return;
  ++t_blk->barriers;
  flush();  // every lane has passed it: the requests before it are whole
}

void launch_end(const char* kernel, const char* file, int line, unsigned gx, unsigned gy, unsigned gz,
                unsigned threads_per_block, size_t dynamic_smem) {
  t_tid = -1;
  std::lock_guard<std::mutex> lock(g_mutex);
  const uint64_t blocks = uint64_t(gx) * gy * gz;
  const double scale = g_launch_sampled ? double(blocks) / double(g_launch_sampled) : 0;
  auto it = std::find_if(g_kernels.begin(), g_kernels.end(),
                         [&](const Kernel& k) { return k.name == kernel && k.file == file && k.line == line; });
  if (it == g_kernels.end()) {
    g_kernels.push_back(Kernel{kernel, file, line, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {}});
    it = g_kernels.end() - 1;
  }
  Kernel& k = *it;
  ++k.launches;
  k.blocks += double(blocks);
  k.sampled_blocks += double(g_launch_sampled);
  if (blocks >= k.largest_grid) {
    k.largest_grid = blocks;
    k.threads_per_block = threads_per_block;
    k.dynamic_smem = dynamic_smem;
  }
  k.static_smem = std::max<size_t>(k.static_smem, g_static_bytes);
  k.barriers += double(g_launch_barriers) * scale;
  for (auto& [key, s] : g_launch_sums) k.lines[key].add(s, scale);
  uint64_t ops = 0, most = 0;
  for (auto& [a, n] : g_launch_atomics) ops += n, most = std::max(most, n);
  k.atomic_ops += double(ops) * scale;
  k.atomic_addresses += double(g_launch_atomics.size()) * scale;
  // One address every block updates (a sum's total) grows with the grid; one per block does not.
  const bool shared_by_blocks = most > 0 && g_launch_sampled > 1 && most >= g_launch_sampled;
  k.atomic_most_on_one = std::max(k.atomic_most_on_one, double(most) * (shared_by_blocks ? scale : 1));
}

// One note per kernel: "cudalab: profile kernel NAME at FILE:LINE key value ... ; line FILE:LINE
// KIND key value ... ; line ...". Lines are merged by source line and kind (an unrolled loop's
// copies are one line), the busiest first, at most kMaxLines.
std::vector<std::string> take_notes() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<std::string> notes;
  constexpr size_t kMaxLines = 16;
  for (const Kernel& k : g_kernels) {
    std::map<std::pair<std::string, Kind>, Sums> by_line;
    for (const auto& [key, s] : k.lines) {
      const SourceLine where = source_line_of(key.first);
      by_line[{where.file + ":" + std::to_string(where.line), key.second}].add(s, 1);
    }
    std::vector<std::pair<std::pair<std::string, Kind>, Sums>> lines(by_line.begin(), by_line.end());
    std::stable_sort(lines.begin(), lines.end(), [](auto& a, auto& b) { return a.second.units > b.second.units; });
    if (lines.size() > kMaxLines) lines.resize(kMaxLines);
    std::string note = "cudalab: profile kernel " + k.name + " at " + k.file + ":" + std::to_string(k.line) +
                       " launches " + std::to_string(k.launches) + " blocks " + number(k.blocks) + " sampled " +
                       number(k.sampled_blocks) + " largest_grid " + std::to_string(k.largest_grid) + " threads " +
                       std::to_string(k.threads_per_block) + " dynamic_smem " + std::to_string(k.dynamic_smem) +
                       " static_smem " + std::to_string(k.static_smem) + " barriers " + number(k.barriers) +
                       " atomic_ops " + number(k.atomic_ops) + " atomic_addresses " + number(k.atomic_addresses) +
                       " atomic_most_on_one " + number(k.atomic_most_on_one);
    for (const auto& [key, s] : lines)
      note += " ; line " + key.first + " " + kKindNames[key.second] + " requests " + number(s.requests) + " lanes " +
              number(s.lanes) + " lanes_possible " + number(s.lanes_possible) + " units " + number(s.units) +
              " ideal_units " + number(s.ideal_units) + " bytes " + number(s.bytes);
    notes.push_back(note.substr(0, 4000));
  }
  g_kernels.clear();
  return notes;
}

void prepare_reports() { source_line_of(reinterpret_cast<uintptr_t>(&prepare_reports) + 1); }

}  // namespace cudalab_cpu::profile

// ---- The hooks -fsanitize=thread calls (tsan_hooks.h) -------------------------------------
namespace cudalab_cpu::tsan_build {
using profile::access;
constexpr bool kAtomicLoadIsAccess = false;  // an atomicAdd's own first read: not another atomic
// Nothing to order: the counters do not look at what happens before what.
struct AtomicOrder {
  explicit AtomicOrder(const volatile void*) {}
};
inline void fenced() {}
}  // namespace cudalab_cpu::tsan_build
#include "tsan_hooks.h"
#endif
