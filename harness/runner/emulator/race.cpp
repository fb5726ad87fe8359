// cudalab CPU backend: the race detector behind CHECK=race (see race.h for what it reports).
//
// Why our own instead of ThreadSanitizer: a plain access racing with an atomic is the race of
// every histogram and counter a lab builds, and TSan was run with such races switched off (so
// as not to flag the Programming Guide's atomicCAS loop, which starts from a plain read; this
// detector flags that too: the README says to start from atomicAdd(p, 0)). TSan knows neither
// barriers nor blocks, so it cannot say "thread 3 of block 0 at line 134 and thread 40 at line
// 114, no __syncthreads() between", and its vector clocks run out at a few hundred threads.
//
// Shadow memory: a two-level table (4 MB of memory per chunk, a 32-byte cell per 4-byte word,
// reserved without backing: only touched pages cost memory), emptied after every launch. A cell
// holds the last write and one read since it. Shared memory (the worker's dynamic area and its
// static TLS, where __shared__ arrays live) is only ever touched by the worker's own block, so
// its cells need no lock; global memory cells take one of a set of striped spin locks.
#if defined(CUDALAB_CPU_RACE)
#include "race.h"

#include <backtrace.h>
#include <cxxabi.h>
#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <unordered_map>

#include "emulator.h"
#include "source_line.h"

extern __thread uint3 threadIdx;

namespace cudalab_cpu::race {

thread_local Thread* t_current = nullptr;

namespace {

// ---- Records ----------------------------------------------------------------------------
// An access in 16 bytes. a: the pc (48 bits), the thread in its block (10 bits), atomic,
// lockstep (a volatile access in its warp's turn), valid. b: the block (low 32 bits of its
// linear index) and the block's clock when it happened.
constexpr uint64_t kPcMask = (uint64_t(1) << 48) - 1;
constexpr uint64_t kAtomic = uint64_t(1) << 58, kLockstep = uint64_t(1) << 59, kValid = uint64_t(1) << 60;
struct Cell {
  uint64_t wa, wb, ra, rb;
};

uint64_t pc_of(uint64_t a) { return a & kPcMask; }
unsigned tid_of(uint64_t a) { return unsigned(a >> 48) & 1023; }
uint32_t block_of(uint64_t b) { return uint32_t(b); }
uint32_t clock_of(uint64_t b) { return uint32_t(b >> 32); }

// ---- The running block (one per worker) ---------------------------------------------------
struct Sync;
struct Block {
  uint64_t linear = 0;
  uint32_t clock = 1, barrier_clock = 0;  // a barrier orders accesses whose clock is below its own
  std::vector<uint32_t> warp_clock;  // likewise for the lanes of one warp
  std::vector<Thread> threads;
  uintptr_t smem_lo = 0, smem_hi = 0, tls_lo = 0, tls_hi = 0;
  std::vector<std::pair<Sync*, size_t>> acquired;  // atomics it made: what it saw of each log
};
// Reached through a plain __thread pointer, set when a worker starts a block: a thread_local with
// a constructor (the vectors) costs a guard test at each use, and lab code's every access uses it.
thread_local Block t_block_storage;
__thread Block* t_blk = nullptr;

// ---- Between blocks: __threadfence() + atomic, then an atomic on the same address ----------
// Each address a block released through keeps a log of (block, block clock) in the order the
// atomics happened; a block's later atomic there sees the log up to its length at that moment.
// Only one hop is followed (block A releases to B, B to C: C is not ordered after A).
struct Sync {
  std::mutex m;
  std::vector<std::pair<uint32_t, uint32_t>> log;
};
std::mutex g_sync_mutex;
std::unordered_map<uintptr_t, Sync*> g_syncs;
std::atomic<bool> g_any_release{false};

// Whether block `from`'s access at clock `clock` happens before what the running block does now.
bool acquired_from(uint32_t from, uint32_t clock) {
  for (auto& [s, seen] : t_blk->acquired) {
    std::lock_guard<std::mutex> lock(s->m);
    for (size_t i = 0; i < seen && i < s->log.size(); ++i)
      if (s->log[i].first == from && s->log[i].second > clock) return true;
  }
  return false;
}

// ---- The shadow table ---------------------------------------------------------------------
constexpr unsigned kChunkShift = 22;
constexpr size_t kChunkCells = (size_t(1) << kChunkShift) / 4;
constexpr size_t kTableSize = size_t(1) << (47 - kChunkShift);
std::atomic<Cell*>* g_table = nullptr;
std::mutex g_chunks_mutex;
std::vector<Cell*> g_chunks;
std::atomic_flag g_locks[4096];

Cell* new_chunk(size_t i) {
  void* p = mmap(nullptr, kChunkCells * sizeof(Cell), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  Cell* fresh = static_cast<Cell*>(p);
  Cell* expected = nullptr;
  if (!g_table[i].compare_exchange_strong(expected, fresh)) {
    munmap(p, kChunkCells * sizeof(Cell));
    return expected;
  }
  std::lock_guard<std::mutex> lock(g_chunks_mutex);
  g_chunks.push_back(fresh);
  return fresh;
}

[[gnu::always_inline]] inline Cell* cell_for(uintptr_t a) {
  const size_t i = a >> kChunkShift;
  if (!g_table || i >= kTableSize) return nullptr;
  Cell* c = g_table[i].load(std::memory_order_acquire);
  if (!c && !(c = new_chunk(i))) return nullptr;
  return c + ((a & ((size_t(1) << kChunkShift) - 1)) >> 2);
}

struct CellLock {
  std::atomic_flag* f;
  explicit CellLock(std::atomic_flag* flag) : f(flag) {
    if (f)
      while (f->test_and_set(std::memory_order_acquire)) {
      }
  }
  ~CellLock() {
    if (f) f->clear(std::memory_order_release);
  }
};

// ---- Reports ------------------------------------------------------------------------------
enum Space { kShared, kGlobal, kBetweenBlocks };
struct Access {
  uint64_t a, b;
  bool write;
};
struct Found {
  Access first, second;
  uintptr_t addr;
  Space space;
  bool dynamic_smem;  // shared memory: the extern __shared__ area, else the static __shared__ arrays
  uintptr_t offset;  // shared memory: from the start of that area
};

unsigned g_grid_x = 1, g_grid_y = 1;
unsigned g_block_x = 1, g_block_y = 1, g_block_z = 1;
std::mutex g_found_mutex;
std::vector<Found> g_found;  // this launch's, at most kMaxReports
std::set<std::pair<uint64_t, uint64_t>> g_pairs;  // pairs of pcs reported in this launch
std::atomic<unsigned> g_conflicts{0};
constexpr size_t kMaxReports = 4;

void found(const Access& first, const Access& second, uintptr_t addr, Space space) {
  // A racy loop conflicts at every iteration: after many, stop looking up pairs.
  if (g_conflicts.fetch_add(1, std::memory_order_relaxed) > 100000) return;
  const auto key = std::minmax(pc_of(first.a), pc_of(second.a));
  const bool dynamic = addr >= t_blk->smem_lo && addr < t_blk->smem_hi;
  const uintptr_t offset = addr - (dynamic ? t_blk->smem_lo : t_blk->tls_lo);
  std::lock_guard<std::mutex> lock(g_found_mutex);
  if (g_found.size() >= kMaxReports || !g_pairs.insert(key).second) return;
  g_found.push_back({first, second, addr, space, dynamic, offset});
}

// ---- Ordering -----------------------------------------------------------------------------
// Whether the recorded access (ra, rb) happens before the running thread's access now.
bool ordered(uint64_t ra, uint64_t rb, unsigned tid, bool lockstep) {
  if (block_of(rb) != uint32_t(t_blk->linear)) return acquired_from(block_of(rb), clock_of(rb));
  const uint32_t k = clock_of(rb);
  if (k < t_blk->barrier_clock) return true;
  const unsigned warp = tid_of(ra) >> 5;
  if (warp != tid >> 5) return false;
  if (k < t_blk->warp_clock[warp]) return true;
  return lockstep && (ra & kLockstep);  // lanes in lockstep: the emulator's own note covers it
}

// Two accesses race: different threads, not both atomic, unordered (the caller knows one writes).
[[gnu::always_inline]] inline bool races(uint64_t ra, uint64_t rb, uint64_t a, bool lockstep) {
  const unsigned tid = tid_of(a);
  if (tid_of(ra) == tid && block_of(rb) == uint32_t(t_blk->linear)) return false;
  if ((ra & kAtomic) && (a & kAtomic)) return false;
  return !ordered(ra, rb, tid, lockstep);
}

[[gnu::always_inline]] inline bool is_shared(uintptr_t w) {
  return (w >= t_blk->smem_lo && w < t_blk->smem_hi) || (w >= t_blk->tls_lo && w < t_blk->tls_hi);
}

// One 4-byte word of an access. Returns whether it raced (one report per access is enough).
[[gnu::always_inline]] inline bool check_word(uintptr_t w, uint64_t a, uint64_t b, bool write) {
  Cell* c = cell_for(w);
  if (!c) return false;
  const bool shared = is_shared(w);
  CellLock lock(shared ? nullptr : &g_locks[(w >> 2) & 4095]);
  const bool lockstep = a & kLockstep;
  if (shared) {  // an earlier block's use of this worker's shared memory is no concern of this one
    if ((c->wa & kValid) && block_of(c->wb) != uint32_t(t_blk->linear)) c->wa = 0;
    if ((c->ra & kValid) && block_of(c->rb) != uint32_t(t_blk->linear)) c->ra = 0;
  }
  const Access now{a, b, write};
  auto space = [&](uint64_t rb) {
    return shared ? kShared : block_of(rb) == uint32_t(t_blk->linear) ? kGlobal : kBetweenBlocks;
  };
  bool raced = false;
  if ((c->wa & kValid) && races(c->wa, c->wb, a, lockstep)) {
    found({c->wa, c->wb, true}, now, w, space(c->wb));
    raced = true;
  } else if (write && (c->ra & kValid) && races(c->ra, c->rb, a, lockstep)) {
    found({c->ra, c->rb, false}, now, w, space(c->rb));
    raced = true;
  }
  if (write) {
    c->wa = a, c->wb = b, c->ra = 0;
  } else if (!(c->ra & kValid) || tid_of(c->ra) == tid_of(a) || block_of(c->rb) != uint32_t(t_blk->linear) ||
             ordered(c->ra, c->rb, tid_of(a), lockstep)) {
    c->ra = a, c->rb = b;  // else keep the earlier reader: a later write races with it
  }
  return raced;
}

// ---- Reads past an array's end ---------------------------------------------------------
// The runner's arrays are followed by the harness's guard words (device_buffers.cpp), readable
// memory: a read one element past a row's end lands there and faults on neither backend. Their
// ranges are taken at each launch (the runner marks them: control::mark_array_end); a few, so a
// read tests each.
constexpr size_t kMaxEnds = 16;
std::pair<uintptr_t, uintptr_t> g_ends[kMaxEnds];
size_t g_end_count = 0;

[[gnu::noinline]] void read_past_end(const volatile void* p, uintptr_t pc) {
  const SourceLine at = source_line_of(pc);
  const std::string what = detail::describe_past_array_end(const_cast<const void*>(p));
  detail::stop_running_thread(
      cudaErrorIllegalAddress,
      "read memory at " + at.file + ":" + std::to_string(at.line) + ", " + what +
          ". What lies there is not the array's: on a GPU a plain run reads it without any error (compute-sanitizer's "
          "memcheck names it). Test the index against the array's size before the load");
}

[[gnu::always_inline]] inline bool past_an_end(uintptr_t addr, size_t size) {
  for (size_t i = 0; i < g_end_count; ++i)
    if (addr < g_ends[i].second && addr + size > g_ends[i].first) return true;
  return false;
}

// Every instrumented access of lab code comes here; only a CUDA thread's count.
inline void access(const volatile void* p, size_t size, bool write, bool atomic, uintptr_t pc) {
  Thread* t = t_current;
  if (!t || size == 0) return;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  if (addr - t->stack_lo < t->stack_bytes) return;  // its own stack
  if (!write && past_an_end(addr, size)) read_past_end(p, pc);
  uint64_t a = (pc & kPcMask) | uint64_t(t->tid) << 48 | kValid | (atomic ? kAtomic : 0);
  if (t->turn == p) {
    a |= kLockstep;
    t->turn = nullptr;
  }
  const uint64_t b = uint64_t(uint32_t(t_blk->linear)) | uint64_t(t_blk->clock) << 32;
  for (uintptr_t w = addr & ~uintptr_t(3); w < addr + size; w += 4)
    if (check_word(w, a, b, write)) break;
}

// An atomic on global memory: a release when the thread's last __threadfence() came after its
// last atomic, and an acquire of what was released there before. The operation itself runs
// between the constructor and the destructor, under the address's lock, so that the log's
// order is the atomics' order.
struct AtomicSync {
  Sync* s = nullptr;
  bool release = false;
  explicit AtomicSync(const volatile void* p) {
    Thread* t = t_current;
    const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    if (!t || is_shared(addr) || addr - t->stack_lo < t->stack_bytes) return;
    release = t->fence;
    t->fence = false;
    if (!release && !g_any_release.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(g_sync_mutex);
    auto it = g_syncs.find(addr);
    if (it != g_syncs.end())
      s = it->second;
    else if (release)
      s = g_syncs[addr] = new Sync;
    if (release) g_any_release = true;
    if (s) s->m.lock();
  }
  ~AtomicSync() {
    if (!s) return;
    if (release) s->log.push_back({uint32_t(t_blk->linear), ++t_blk->clock});
    const size_t seen = s->log.size();
    s->m.unlock();
    for (auto& [sync, n] : t_blk->acquired)
      if (sync == s) {
        n = seen;
        return;
      }
    t_blk->acquired.push_back({s, seen});
  }
};

// The executable's static TLS block, where the lab's __shared__ arrays live (per worker); on
// x86-64 it ends at the thread pointer.
size_t g_tls_bytes = 0;
int tls_of_main(dl_phdr_info* info, size_t, void* out) {
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) {
      const size_t align = std::max<size_t>(1, info->dlpi_phdr[i].p_align);
      *static_cast<size_t*>(out) = (info->dlpi_phdr[i].p_memsz + align - 1) / align * align;
    }
  return 1;  // the first object is the program itself
}

void find_static_tls() {
  static std::once_flag once;
  std::call_once(once, [] { dl_iterate_phdr(tls_of_main, &g_tls_bytes); });
  auto tp = reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
  auto probe = reinterpret_cast<uintptr_t>(&threadIdx);
  // Plain numbers from here: GCC may take a TLS variable's offset from the thread pointer as
  // non-negative and fold `probe < tp` to false (it did, once this function was inlined).
  asm("" : "+r"(tp), "+r"(probe));
  if (g_tls_bytes && probe >= tp - g_tls_bytes && probe < tp) {
    t_blk->tls_lo = tp - g_tls_bytes;
    t_blk->tls_hi = tp;
  } else {
    std::fprintf(stderr, "cudalab: the race detector could not find the __shared__ arrays (static TLS)\n");
  }
}

}  // namespace

// ---- What the emulator tells the detector --------------------------------------------------

void launch_begin(unsigned grid_x, unsigned grid_y, unsigned block_x, unsigned block_y, unsigned block_z) {
  if (!g_table) {
    void* p = mmap(nullptr, kTableSize * sizeof(std::atomic<Cell*>), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) g_table = static_cast<std::atomic<Cell*>*>(p);
  }
  g_grid_x = grid_x, g_grid_y = grid_y;
  g_block_x = block_x, g_block_y = block_y, g_block_z = block_z;
  g_conflicts = 0;
  const auto ends = detail::past_array_ends();
  g_end_count = std::min(ends.size(), kMaxEnds);
  std::copy_n(ends.begin(), g_end_count, g_ends);
  std::lock_guard<std::mutex> lock(g_found_mutex);
  g_pairs.clear();
}

void block_begin(uint64_t linear, unsigned threads, const void* smem, size_t smem_bytes) {
  t_current = nullptr;  // (a thread abandoned at a fault never switched away)
  t_blk = &t_block_storage;
  Block& k = *t_blk;
  if (!k.tls_hi) find_static_tls();
  k.linear = linear;
  k.clock = 1;
  k.barrier_clock = 0;
  k.warp_clock.assign((threads + 31) / 32, 0);
  k.threads.assign(threads, Thread{});
  for (unsigned t = 0; t < threads; ++t) k.threads[t].tid = t;
  k.smem_lo = reinterpret_cast<uintptr_t>(smem);
  k.smem_hi = k.smem_lo + smem_bytes;
  k.acquired.clear();
}

void run_thread(unsigned tid, const void* stack_lo, size_t stack_bytes) {
  Thread& t = t_blk->threads[tid];
  t.stack_lo = reinterpret_cast<uintptr_t>(stack_lo);
  t.stack_bytes = stack_bytes;
  t_current = &t;
}

void barrier() { t_blk->barrier_clock = ++t_blk->clock; }
void warp_sync(unsigned warp) { t_blk->warp_clock[warp] = ++t_blk->clock; }

// ---- Reports, in words --------------------------------------------------------------------
namespace {

backtrace_state* symbols() { return program_symbols(); }

// The line an access was made at (source_line.h: the lab's own innermost frame).
using Place = SourceLine;
Place place_of(uint64_t a) { return source_line_of(uintptr_t(pc_of(a))); }

std::string thread_words(unsigned tid) {
  if (g_block_y == 1 && g_block_z == 1) return "thread " + std::to_string(tid);
  return "thread (" + std::to_string(tid % g_block_x) + "," + std::to_string(tid / g_block_x % g_block_y) + "," +
         std::to_string(tid / (g_block_x * g_block_y)) + ")";
}
std::string block_words(uint32_t linear) {
  if (g_grid_y == 1) return "block " + std::to_string(linear);
  return "block (" + std::to_string(linear % g_grid_x) + "," + std::to_string(linear / g_grid_x % g_grid_y) + "," +
         std::to_string(linear / (uint64_t(g_grid_x) * g_grid_y)) + ")";
}
const char* kind_token(const Access& x) {
  return (x.a & kAtomic) ? (x.write ? "atomic" : "atomic read") : (x.write ? "write" : "read");
}
const char* verb(const Access& x) {
  return (x.a & kAtomic) ? (x.write ? "updated it atomically" : "read it atomically")
                         : (x.write ? "wrote it" : "read it");
}

// The lab's static __shared__ arrays: thread-local symbols of the program (offset and size in
// its TLS segment), read once from its own symbol table.
struct TlsSymbol {
  uint64_t offset, size;
  std::string name;
};
std::vector<TlsSymbol> read_tls_symbols() {
  std::vector<TlsSymbol> out;
  FILE* f = std::fopen("/proc/self/exe", "rb");
  if (!f) return out;
  std::vector<char> elf;
  char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) elf.insert(elf.end(), buf, buf + n);
  std::fclose(f);
  if (elf.size() < sizeof(ElfW(Ehdr))) return out;
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(elf.data());
  if (eh->e_shoff + size_t(eh->e_shnum) * sizeof(ElfW(Shdr)) > elf.size()) return out;
  const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(elf.data() + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
    const ElfW(Shdr)& names = sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > elf.size() || names.sh_offset + names.sh_size > elf.size()) continue;
    const auto* sym = reinterpret_cast<const ElfW(Sym)*>(elf.data() + sh[i].sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k)
      if (ELF64_ST_TYPE(sym[k].st_info) == STT_TLS && sym[k].st_size && sym[k].st_name < names.sh_size)
        out.push_back({sym[k].st_value, sym[k].st_size, elf.data() + names.sh_offset + sym[k].st_name});
  }
  return out;
}

// "s_hist" from "_ZZ16histogram_kernelPKhPjmE6s_hist" (a function's static: its last name).
std::string short_name(const std::string& mangled) {
  int status = 0;
  char* full = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string s = status == 0 && full ? full : mangled;
  std::free(full);
  const size_t colons = s.rfind("::");
  return colons == std::string::npos ? s : s.substr(colons + 2);
}

const std::vector<TlsSymbol>& tls_symbols() {
  static const std::vector<TlsSymbol> symbols = read_tls_symbols();
  return symbols;
}

std::string shared_words(const Found& f) {
  if (f.dynamic_smem) return "byte " + std::to_string(f.offset) + " of the dynamic shared memory (extern __shared__)";
  for (const auto& s : tls_symbols())
    if (f.offset >= s.offset && f.offset < s.offset + s.size)
      return "byte " + std::to_string(f.offset - s.offset) + " of the __shared__ array " + short_name(s.name);
  return "a word of the block's shared memory";
}

std::string memory_words(const Found& f) {
  if (f.space == kShared) return shared_words(f);
  char text[400];
  if (detail::describe_host_access(reinterpret_cast<void*>(f.addr), text, sizeof text)) return text;
  // Not an allocation: a __device__ variable of the lab's, named by the symbol table.
  std::string name;
  if (symbols())
    backtrace_syminfo(
        symbols(), f.addr,
        [](void* data, uintptr_t, const char* symbol, uintptr_t, uintptr_t) {
          if (symbol) *static_cast<std::string*>(data) = symbol;
        },
        [](void*, const char*, int) {}, &name);
  return name.empty() ? "a word of global memory" : "the __device__ variable " + name;
}

// One report: a header the checker parses ("data race on shared memory at FILE:LINE (kind) and
// FILE:LINE (kind): "), then the account, then what to do.
std::string report(const Found& f, const std::string& kernel_text) {
  const Place p1 = place_of(f.first.a), p2 = place_of(f.second.a);
  const std::string at1 = p1.file + ":" + std::to_string(p1.line), at2 = p2.file + ":" + std::to_string(p2.line);
  const char* space = f.space == kShared   ? "on shared memory"
                      : f.space == kGlobal ? "on global memory"
                                           : "between blocks on global memory";
  std::string s = std::string("cudalab: note: data race ") + space + " at " + at1 + " (" + kind_token(f.first) +
                  ") and " + at2 + " (" + kind_token(f.second) + "): in " + kernel_text + ", " +
                  thread_words(tid_of(f.first.a)) + " of " + block_words(block_of(f.first.b)) + " " + verb(f.first) +
                  " (" + memory_words(f) + ") at " + at1 + ", and " + thread_words(tid_of(f.second.a)) + " of " +
                  block_words(block_of(f.second.b)) + " " + verb(f.second) + " at " + at2;
  if (f.space != kBetweenBlocks)
    return s +
           ", with no __syncthreads() between the two. Put one between them, where every thread of the block "
           "reaches it.";
  return s +
         ". Blocks run in no order CUDA promises, and a __syncthreads() orders only the threads of one block. "
         "Let a second launch read what the first wrote, or let the last block do it: __threadfence() and an "
         "atomic in every block, then read only once your atomic says the others are done.";
}

}  // namespace

std::vector<std::string> launch_end(const std::string& kernel_text) {
  t_current = nullptr;  // the lab's host code runs next on this thread: none of its accesses count
  std::vector<Found> list;
  {
    std::lock_guard<std::mutex> lock(g_found_mutex);
    list.swap(g_found);
  }
  std::vector<std::string> notes;
  std::set<std::pair<std::string, std::string>> lines_reported;  // either order
  for (const Found& f : list) {
    const std::string r = report(f, kernel_text);
    // Two copies of one line (an unrolled loop) have pcs of their own: the lines decide.
    const Place a = place_of(f.first.a), b = place_of(f.second.a);
    std::string at_a = a.file + ":" + std::to_string(a.line), at_b = b.file + ":" + std::to_string(b.line);
    if (at_b < at_a) std::swap(at_a, at_b);
    if (lines_reported.insert({at_a, at_b}).second) notes.push_back(r);
  }
  // Empty the shadow (the pages go back; the address space stays) and the atomics' logs.
  {
    std::lock_guard<std::mutex> lock(g_chunks_mutex);
    for (Cell* c : g_chunks) madvise(c, kChunkCells * sizeof(Cell), MADV_DONTNEED);
  }
  std::lock_guard<std::mutex> lock(g_sync_mutex);
  for (auto& [addr, s] : g_syncs) delete s;
  g_syncs.clear();
  g_any_release = false;
  return notes;
}

// What reports read from the program's file (its debug lines, its symbol table), read now: the
// kernel runner can no longer open files once its system calls are limited.
void prepare_reports() {
  tls_symbols();
  place_of(reinterpret_cast<uintptr_t>(&prepare_reports) + 1);
}

}  // namespace cudalab_cpu::race

// ---- The hooks -fsanitize=thread calls (tsan_hooks.h) -------------------------------------
namespace cudalab_cpu::tsan_build {
using race::access;
constexpr bool kAtomicLoadIsAccess = true;  // an atomic load is an access (a race with a plain write)
using AtomicOrder = race::AtomicSync;
// A fence marks the thread: its next atomic on global memory releases what it did before.
inline void fenced() {
  if (auto* t = race::t_current) t->fence = true;
}
}  // namespace cudalab_cpu::tsan_build
#include "tsan_hooks.h"
#endif
