// The profile in words (profile_digest.h).
//
// Each possible limiter is a finding only when the student's figure is bad in itself AND worse
// than the reference solution's by a margin: the reference is the lab's own yardstick (lab 1's
// reference diverges by design, and is not to be "fixed"). Findings are ranked by how many times
// worse than the reference they make the work they touch; the first names the limiter.
#include "profile_digest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

namespace cudalab {
namespace {

bool is_global(AccessKind k) { return k <= AccessKind::GlobalAtomic; }

// A run's figures, added up.
struct Summary {
  double g_requests = 0, g_sectors = 0, g_ideal = 0;
  double load_bytes = 0, load_lanes = 0, load_requests = 0;  // global loads: bytes a lane, a request asks for
  double s_requests = 0, s_wavefronts = 0, s_ideal = 0;
  double lanes = 0, lanes_possible = 0;
  double atomics = 0, atomic_most = 0, barriers = 0;
  double g_load_values = 0, s_load_values = 0;  // 4-byte values the threads loaded, every lane's
  double fmas = 0;  // FFMA thread instructions, where every kernel's were measured (a GPU's)
  bool fmas_measured = true;
  const KernelFigures* main = nullptr;  // the kernel that does the most memory work
  double grid = 0, occupancy = 0;
  std::string occupancy_limit;
  bool any = false;
};

double work_of(const KernelFigures& k) {
  double w = 0;
  for (const auto& l : k.lines) w += l.units;
  return w;
}

// Theoretical occupancy on the GPU: resident warps per SM over its 64, and what limits it.
std::pair<double, std::string> occupancy(const KernelFigures& k, const GpuModel& g) {
  const double warps = std::ceil(std::max(1.0, k.threads) / 32);
  double blocks = g.blocks_per_sm;
  std::string limit = "the 32 blocks an SM holds";
  const double by_threads = std::floor(g.threads_per_sm / (warps * 32));
  if (by_threads < blocks) blocks = by_threads, limit = "the 2048 threads an SM holds";
  const double smem = k.dynamic_smem + k.static_smem;
  if (smem > 0) {
    const double by_smem = std::floor(g.smem_per_sm / (smem + g.smem_reserved_per_block));
    if (by_smem < blocks) blocks = by_smem, limit = "shared memory";
  }
  if (k.registers > 0) {
    const double regs = std::ceil(k.registers / 8) * 8 * warps * 32;
    const double by_regs = std::floor(g.regs_per_sm / regs);
    if (by_regs < blocks) blocks = by_regs, limit = "registers";
  }
  return {std::min(1.0, blocks * warps / (g.threads_per_sm / 32)), limit};
}

// The values a kernel's threads loaded: a GPU's SASS counters where measured, else the emulator's
// lines (a lane's float4 is four values, a broadcast word one value for every lane that asked).
void add_loaded_values(const KernelFigures& k, Summary& s) {
  double global = 0, shared = 0;
  for (const auto& l : k.lines)
    if (l.kind == AccessKind::GlobalLoad)
      global += l.bytes;
    else if (l.kind == AccessKind::SharedLoad)
      shared += l.bytes;
  s.g_load_values += k.global_load_bytes.value_or(global) / 4;
  s.s_load_values += k.shared_load_bytes.value_or(shared) / 4;
  if (k.fmas)
    s.fmas += *k.fmas;
  else
    s.fmas_measured = false;
}

Summary summarize(const ProfileFigures& f, const GpuModel& g) {
  Summary s;
  double best = -1;
  for (const auto& k : f.kernels) {
    s.any = true;
    s.atomics += k.atomic_ops;
    s.atomic_most = std::max(s.atomic_most, k.atomic_most_on_one);
    s.barriers += k.barriers;
    add_loaded_values(k, s);
    for (const auto& l : k.lines) {
      s.lanes += l.lanes, s.lanes_possible += l.lanes_possible;
      if (is_global(l.kind)) {
        s.g_requests += l.requests, s.g_sectors += l.units, s.g_ideal += l.ideal_units;
        if (l.kind == AccessKind::GlobalLoad)
          s.load_bytes += l.bytes, s.load_lanes += l.lanes, s.load_requests += l.requests;
      } else {
        s.s_requests += l.requests, s.s_wavefronts += l.units, s.s_ideal += l.ideal_units;
      }
    }
    if (const double w = work_of(k); w > best) best = w, s.main = &k;
  }
  if (s.main) {
    s.grid = s.main->largest_grid;
    std::tie(s.occupancy, s.occupancy_limit) = occupancy(*s.main, g);
  }
  return s;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

std::string num(double v, int digits = 1) {
  char t[64];
  if (std::fabs(v) >= 100 || v == std::floor(v))
    std::snprintf(t, sizeof t, "%.0f", v);
  else
    std::snprintf(t, sizeof t, "%.*f", digits, v);
  return t;
}
std::string pct(double v) { return num(100 * v, 0) + "%"; }
// How many multiply-adds a loaded value takes part in, from values loaded per multiply-add (each
// multiply-add takes two).
std::string times_used(double values_per_fma) {
  const double uses = 2 / values_per_fma;
  if (uses < 1.25) return "once";
  if (uses < 2.5) return "twice";
  return num(uses, 0) + " times";
}

// The line of a run, over lines of `which`, that most exceeds the fewest units, or most idles
// lanes, or (neither) makes the most requests.
enum class Worst { Units, Lanes, Requests, Bytes };
const LineFigures* worst_line(const ProfileFigures& f, bool (*which)(AccessKind), Worst by) {
  const LineFigures* worst = nullptr;
  double most = 0;
  for (const auto& k : f.kernels)
    for (const auto& l : k.lines) {
      if (!which(l.kind)) continue;
      const double waste = by == Worst::Lanes   ? l.lanes_possible - l.lanes
                           : by == Worst::Units ? l.units - l.ideal_units
                           : by == Worst::Bytes ? l.bytes
                                                : l.requests;
      if (waste > most) most = waste, worst = &l;
    }
  return worst;
}
bool any_global(AccessKind k) { return is_global(k); }
bool any_shared(AccessKind k) { return !is_global(k); }
bool any_access(AccessKind) { return true; }
bool global_atomic(AccessKind k) { return k == AccessKind::GlobalAtomic; }
bool global_load(AccessKind k) { return k == AccessKind::GlobalLoad; }
bool shared_load(AccessKind k) { return k == AccessKind::SharedLoad; }

struct Finding {
  Finding(std::string i, double s) : id(std::move(i)), severity(s) {}
  std::string id;
  double severity = 0;  // times worse than the reference, for the work it touches
  std::string first, beside, action, also;
};

const char* access_words(AccessKind k) {
  switch (k) {
    case AccessKind::GlobalLoad: return "load";
    case AccessKind::GlobalStore: return "store";
    case AccessKind::GlobalAtomic: return "atomic";
    case AccessKind::SharedLoad: return "shared-memory read";
    case AccessKind::SharedStore: return "shared-memory write";
    case AccessKind::SharedAtomic: return "shared-memory atomic";
  }
  return "access";
}

// Data reuse in a matrix product, from one memory (global or shared): the values the threads load
// from it per multiply-add. Two per multiply-add is none at all (both operands loaded for it);
// shared-memory tiles bring global memory's down by the tile's width, registers holding a patch
// of C per thread bring shared memory's down by the patch's. Bad in itself from `bad` up (a value
// used at most 2 / bad times), and a finding at three times the reference's or more: lab 5's
// 16 x 16 tiles (each value used 16 times, the reference's 32) are a choice, not a mistake.
struct ReuseFigures {
  double yours = 0, reference = 0;  // values loaded per multiply-add
};
std::optional<Finding> reuse_finding(bool global, const ReuseFigures& v, const std::string& how,
                                     const std::string& where) {
  const double bad = global ? 0.25 : 0.5;
  if (v.yours < bad || v.yours < 3 * v.reference) return std::nullopt;
  const std::string memory = global ? "global memory" : "shared memory";
  Finding f{global ? "reuse_global" : "reuse_shared", std::min(64.0, v.yours / std::max(v.reference, 1e-3))};
  f.first = how + ": data reuse from " + memory + " is the limiter, " + where + ": your threads load " +
            num(v.yours, 2) + " values from " + memory + " for every multiply-add, so each value is used " +
            times_used(v.yours) + ".";
  f.beside = "The reference solution loads " + num(v.reference, 2) + " values from " + memory +
             " per multiply-add, each used " + times_used(std::max(v.reference, 1e-3)) + ".";
  f.action = global ? "Let a block fetch tiles of A and B into shared memory once and compute from there (lab 5's "
                      "tiles): each value fetched then serves a whole row or column of threads."
                    : "Give each thread several outputs, held in registers (a patch of C, 4 x 4 or more): at each "
                      "step of k it reads a few values of A and of B once and multiplies each by all the others.";
  f.also = "data reuse from " + memory;
  return f;
}

}  // namespace

ProfileDigest digest_profile(const ProfileInputs& in) {
  ProfileDigest d;
  const std::string how = in.measured
                              ? "Measured on the " + in.gpu.name + " with Nsight Compute"
                              : "Estimated for an " + in.gpu.name + " (counted on the CPU backend, not measured)";
  const Summary y = summarize(*in.yours, in.gpu), r = summarize(*in.reference, in.gpu);
  const double n = std::max(1.0, in.elements);
  auto at = [&](const LineFigures* l) {
    const std::string p = l ? in.your_place(l->place) : "";
    return p.empty() ? std::string("in your kernel") : "at " + p;
  };
  const std::string main_kernel =
      y.main ? (in.your_place(y.main->place).empty() ? "your launch" : "your launch at " + in.your_place(y.main->place))
             : "your launch";

  std::vector<Finding> found;
  // Coalescing: sectors per request against the fewest that would hold the bytes.
  const double y_coal = ratio(y.g_sectors, y.g_ideal), r_coal = ratio(r.g_sectors, r.g_ideal);
  if (y_coal >= 1.5 && y_coal >= 1.3 * std::max(1.0, r_coal)) {
    const LineFigures* l = worst_line(*in.yours, any_global, Worst::Units);
    Finding f{"uncoalesced", y_coal / std::max(1.0, r_coal)};
    f.first = how + ": uncoalesced global memory is the limiter, " + at(l) + ": each warp's " +
              (l ? access_words(l->kind) : "access") + " touches " + num(l ? ratio(l->units, l->requests) : y_coal) +
              " sectors of 32 bytes where " + num(l ? ratio(l->ideal_units, l->requests) : 1) +
              " would hold its bytes.";
    f.beside = "Over the whole run yours moves " + num(y_coal) +
               " times the sectors it needs; the reference solution " + num(std::max(1.0, r_coal)) + " times.";
    f.action =
        "Let consecutive threads (threadIdx.x) touch consecutive addresses; where the pattern cannot change "
        "(a transpose's writes), go through a shared-memory tile and write it out row by row.";
    f.also = "uncoalesced accesses";
    found.push_back(f);
  }
  // Shared-memory bank conflicts: wavefronts per request against the fewest.
  const double y_bank = ratio(y.s_wavefronts, y.s_ideal), r_bank = ratio(r.s_wavefronts, r.s_ideal);
  if (y_bank >= 1.5 && y_bank >= 1.3 * std::max(1.0, r_bank)) {
    const LineFigures* l = worst_line(*in.yours, any_shared, Worst::Units);
    const double ways = l ? ratio(l->units, l->ideal_units) : y_bank;
    Finding f{"bank_conflicts", y_bank / std::max(1.0, r_bank)};
    f.first = how + ": shared-memory bank conflicts are the limiter, " + at(l) +
              ": the lanes of a warp meet in one bank " + num(ways) + " ways, so each " +
              (l ? access_words(l->kind) : "access") + " takes " + num(ways) + " passes instead of one.";
    f.beside = "Over the run yours takes " + num(y_bank) +
               " passes per shared-memory request; the reference solution " + num(std::max(1.0, r_bank)) + ".";
    f.action =
        "Banks are 4-byte words, 32 of them: a warp reading a column of a [32][32] float tile hits one bank 32 "
        "times. Pad each row by one element ([32][33]) or let lanes read consecutive words.";
    f.also = "bank conflicts";
    found.push_back(f);
  }
  // Divergence: lanes that take part in the memory instructions.
  const double y_lane = ratio(y.lanes, y.lanes_possible), r_lane = ratio(r.lanes, r.lanes_possible);
  // On a GPU a short divergent `if` is predicated, not jumped: every warp issues its shared-memory
  // instructions, busy lanes or not, so the reference's whole idle warps (`tid < s`) cost lanes
  // too and the share of busy lanes alone cannot tell the two apart. What can: the idle lanes
  // (1 - predicated-on share) weighted by the share of shared-memory instructions that still had
  // a lane at work, i.e. idle lanes spread over working warps.
  auto spread = [](const Summary& s) {
    const KernelFigures* k = s.main;
    return k && k->pred_on_share && k->shared_working_share ? (1 - *k->pred_on_share) * *k->shared_working_share : -1.0;
  };
  const double y_spread = in.measured ? spread(y) : -1, r_spread = in.measured ? spread(r) : -1;
  const bool spread_divergent = y_spread >= 0.12 && r_spread >= 0 && y_spread >= 1.5 * r_spread;
  if (y.lanes_possible > 0 && ((y_lane <= 0.7 && y_lane <= 0.6 * r_lane) || spread_divergent)) {
    const LineFigures* l = worst_line(*in.yours, any_access, Worst::Lanes);
    Finding f{"divergence", spread_divergent && !(y_lane <= 0.7 && y_lane <= 0.6 * r_lane)
                                ? y_spread / std::max(r_spread, 0.01)
                                : r_lane / std::max(y_lane, 1e-3)};
    f.first = how + ": divergent warps are the limiter, " + at(l) + ": a warp has on average " +
              num(l ? 32 * ratio(l->lanes, l->lanes_possible) : 32 * y_lane) +
              " of its 32 lanes busy there, and the idle ones wait for them.";
    f.beside = "Over the run " + pct(y_lane) +
               " of the lanes are busy at your memory instructions; the reference "
               "solution's " +
               pct(r_lane) + ".";
    f.action =
        "Give the work to consecutive threads, so that whole warps are busy or idle together: `tid < s` "
        "rather than `tid % (2 * s) == 0`, and never one thread looping over a block's elements.";
    f.also = "divergent warps";
    found.push_back(f);
  }
  // Atomics: how many per element, and on one address.
  const double y_atom = y.atomics / n, r_atom = r.atomics / n;
  if (y_atom >= 0.01 && y_atom >= 8 * r_atom) {
    const LineFigures* l = worst_line(*in.yours, global_atomic, Worst::Requests);
    Finding f{"atomics", std::min(100.0, ratio(y_atom, std::max(r_atom, 1e-9)))};
    f.first = how + ": atomics on one address are the limiter, " + at(l) + ": " + num(y.atomics, 0) +
              " atomic updates for " + num(n, 0) + " elements, up to " + num(y.atomic_most, 0) +
              " on the same address, and those run one after another.";
    f.beside = "The reference solution makes " + num(r.atomics, 0) + " (one per block).";
    f.action = "Sum in a register per thread and in shared memory per block first, then one atomicAdd per block.";
    f.also = "atomics";
    found.push_back(f);
  }
  // Too few blocks for the GPU's SMs.
  if (y.main && y.grid < in.gpu.sms && y.grid * 2 <= r.grid) {
    Finding f{"too_few_blocks", std::min(32.0, in.gpu.sms / std::max(1.0, y.grid))};
    f.first = how + ": too few blocks are the limiter: " + main_kernel + " has " + num(y.grid, 0) + " blocks for the " +
              in.gpu.name + "'s " + num(in.gpu.sms, 0) + " SMs, so " + num(in.gpu.sms - y.grid, 0) +
              " of them sit idle.";
    f.beside = "The reference solution launches " + num(r.grid, 0) + " blocks at this size.";
    f.action =
        "Size the grid from the GPU: cudaDevAttrMultiProcessorCount times the blocks an SM holds "
        "(cudaOccupancyMaxActiveBlocksPerMultiprocessor), with a grid-stride loop over the rest.";
    f.also = "too few blocks";
    found.push_back(f);
  }
  // Narrow loads: bytes a lane asks for at once.
  // On a GPU the lanes at the loads are estimated from the kernel's predicated-on share over all
  // its instructions, which can put a float load at 4.2 bytes a lane: the bytes a warp's request
  // asks for (128 for floats from a full warp, 512 for float4s) say it too, against the
  // reference's.
  const double y_width = ratio(y.load_bytes, y.load_lanes), r_width = ratio(r.load_bytes, r.load_lanes);
  const double y_per_request = ratio(y.load_bytes, y.load_requests),
               r_per_request = ratio(r.load_bytes, r.load_requests);
  if (y_width > 0 && (y_width <= 4 || y_per_request <= 4 * 32 * 1.05) && r_width >= 2 * y_width &&
      r_per_request >= 2 * y_per_request) {
    const LineFigures* l = worst_line(*in.yours, global_load, Worst::Requests);
    Finding f{"narrow_loads", 1 + std::log2(r_width / y_width) / 2};
    f.first = how + ": narrow loads are the limiter, " + at(l) + ": each thread loads " + num(y_width, 0) +
              " bytes at a time, so a warp issues " + num(r_per_request / y_per_request, 0) +
              " times the requests for the same data.";
    f.beside = "The reference solution loads " + num(r_width, 0) + " bytes a thread at once (float4).";
    f.action =
        "Load float4 (16 bytes) per thread where the data allows: reinterpret_cast<const float4*>, with the "
        "misaligned head and the tail done one float at a time.";
    f.also = "narrow loads";
    found.push_back(f);
  }
  // Data reuse, where the lab is a matrix product: per multiply-add a GPU's measured FFMAs (both
  // runs'), else the problem's own count, which every correct kernel does.
  const bool measured_fmas = y.fmas_measured && r.fmas_measured && y.fmas > 0 && r.fmas > 0;
  const double y_fmas = measured_fmas ? y.fmas : in.multiply_adds, r_fmas = measured_fmas ? r.fmas : in.multiply_adds;
  const ReuseFigures g_reuse{ratio(y.g_load_values, y_fmas), ratio(r.g_load_values, r_fmas)},
      s_reuse{ratio(y.s_load_values, y_fmas), ratio(r.s_load_values, r_fmas)};
  // Where: the line that loads the most, else (a GPU's report without per-kind lines) the kernel.
  auto loads_at = [&](bool (*which)(AccessKind)) {
    const LineFigures* l = worst_line(*in.yours, which, Worst::Bytes);
    const std::string kernel = y.main ? in.your_place(y.main->place) : "";
    return l || kernel.empty() ? at(l) : "at " + kernel;
  };
  if (in.multiply_adds > 0) {
    if (auto f = reuse_finding(true, g_reuse, how, loads_at(global_load))) found.push_back(*f);
    if (auto f = reuse_finding(false, s_reuse, how, loads_at(shared_load))) found.push_back(*f);
  }
  // Occupancy from the block's size and shared memory.
  if (y.main && r.main && y.occupancy < 0.5 && y.occupancy <= 0.75 * r.occupancy) {
    Finding f{"occupancy", r.occupancy / std::max(0.01, y.occupancy)};
    f.first = how + ": low occupancy is the limiter: " + main_kernel + " can keep at most " + pct(y.occupancy) +
              " of an SM's warps resident, limited by " + y.occupancy_limit + ".";
    f.beside = "The reference solution's launch allows " + pct(r.occupancy) +
               (in.measured ? "." : " (registers not counted here).");
    f.action = "Use blocks of 128 to 256 threads and no more shared memory per block than the data in flight needs.";
    f.also = "low occupancy";
    found.push_back(f);
  }
  // Barriers per element.
  const double y_bar = y.barriers / n, r_bar = r.barriers / n;
  if (y_bar >= 2 * r_bar && y_bar > 1.0 / 256) {
    Finding f{"barriers", ratio(y_bar, std::max(r_bar, 1e-9)) / 2};
    f.first = how + ": barriers are the limiter: " + num(y.barriers, 0) + " __syncthreads() for " + num(n, 0) +
              " elements, and every one waits for the slowest warp of its block.";
    f.beside = "The reference solution passes " + num(r.barriers, 0) + ".";
    f.action =
        "Let each thread sum several elements in a register before the block's tree, and finish the last 32 "
        "values with warp shuffles, which need no __syncthreads().";
    f.also = "barriers";
    found.push_back(f);
  }

  std::stable_sort(found.begin(), found.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  if (found.empty()) {
    d.limiter = "none";
    d.sentences.push_back(how + ": nothing stands out against the reference solution: your memory accesses, " +
                          (in.multiply_adds > 0 ? "data reuse, " : "") +
                          "shared-memory banks, busy lanes, atomics and launch size are in line with its own.");
    d.sentences.push_back(
        "What is left is the work itself: compare your time with the reference's in the table above.");
  } else {
    d.limiter = found[0].id;
    d.sentences.push_back(found[0].first);
    d.sentences.push_back(found[0].beside);
    d.sentences.push_back(found[0].action);
    if (found.size() > 1) {
      std::string also = "Also worse than the reference: " + found[1].also;
      for (size_t i = 2; i < found.size(); ++i) also += (i + 1 == found.size() ? " and " : ", ") + found[i].also;
      d.sentences.push_back(also + ".");
    }
  }

  auto row = [&](const std::string& figure, const std::string& a, const std::string& b) {
    d.table.push_back({figure, a, b});
  };
  row("global sectors per request (fewest)",
      num(ratio(y.g_sectors, y.g_requests)) + " (" + num(ratio(y.g_ideal, y.g_requests)) + ")",
      num(ratio(r.g_sectors, r.g_requests)) + " (" + num(ratio(r.g_ideal, r.g_requests)) + ")");
  row("bytes a thread loads at once", num(y_width, 0), num(r_width, 0));
  row("shared-memory passes per request", y.s_requests ? num(ratio(y.s_wavefronts, y.s_requests)) : "-",
      r.s_requests ? num(ratio(r.s_wavefronts, r.s_requests)) : "-");
  row("busy lanes at memory instructions", pct(y_lane), pct(r_lane));
  if (y_spread >= 0 || r_spread >= 0)
    row("idle lanes in working warps (GPU)", y_spread >= 0 ? num(y_spread, 2) : "-",
        r_spread >= 0 ? num(r_spread, 2) : "-");
  if (in.multiply_adds > 0) {
    row("global values loaded per multiply-add", num(g_reuse.yours, 3), num(g_reuse.reference, 3));
    row("shared values loaded per multiply-add", num(s_reuse.yours, 3), num(s_reuse.reference, 3));
  }
  row("global atomics per 1000 elements", num(1000 * y_atom, 2), num(1000 * r_atom, 2));
  row("__syncthreads() per 1000 elements", num(1000 * y_bar, 2), num(1000 * r_bar, 2));
  row("blocks in the largest launch", num(y.grid, 0), num(r.grid, 0));
  row("occupancy allowed (" + std::string(in.measured ? "achieved" : "theoretical") + ")",
      in.measured && y.main && y.main->achieved_occupancy_pct ? num(*y.main->achieved_occupancy_pct, 0) + "%"
                                                              : pct(y.occupancy),
      in.measured && r.main && r.main->achieved_occupancy_pct ? num(*r.main->achieved_occupancy_pct, 0) + "%"
                                                              : pct(r.occupancy));
  if (in.measured)
    row("DRAM throughput, % of peak", y.main && y.main->dram_pct ? num(*y.main->dram_pct, 0) + "%" : "-",
        r.main && r.main->dram_pct ? num(*r.main->dram_pct, 0) + "%" : "-");
  return d;
}

}  // namespace cudalab
