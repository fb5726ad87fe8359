// What the profile counted, as the checker holds it: per kernel, per source line, the warp
// requests a GPU would make (issue 31). Both backends fill the same figures: the CPU backend's
// emulator from its counts (its notes, parse_profile_note), a GPU's from Nsight Compute
// (ncu_figures.h). Everything here came from a process that ran student code: numbers are
// checked for range, names and places are shown only as the lab file has them, and nothing
// here ever decides a verdict or a point.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace cudalab {

enum class AccessKind { GlobalLoad, GlobalStore, GlobalAtomic, SharedLoad, SharedStore, SharedAtomic };

// One source line's requests of one kind, over a run of the lab's function.
struct LineFigures {
  std::string place;  // "labs/lab4_transpose.cu:57", as the runner said it (checked before shown)
  AccessKind kind = AccessKind::GlobalLoad;
  double requests = 0;  // warp requests
  double lanes = 0;  // lanes that took part, summed over the requests
  double lanes_possible = 0;  // the lanes their warps had
  double units = 0;  // global: 32-byte sectors; shared: wavefronts
  double ideal_units = 0;  // the fewest that could serve the same bytes
  double bytes = 0;  // bytes the lanes asked for
};

struct KernelFigures {
  std::string name;
  std::string place;  // its launch
  double launches = 0, blocks = 0;
  double largest_grid = 0;  // blocks of its largest launch
  double threads = 0;  // threads per block of that launch
  double dynamic_smem = 0, static_smem = 0;  // bytes per block
  double registers = 0;  // per thread; 0 when not known (the CPU backend)
  double barriers = 0;  // block-wide barriers passed, over all its blocks
  double atomic_ops = 0;  // global atomics (lanes)
  double atomic_most_on_one = 0;  // the most of them on one address
  std::vector<LineFigures> lines;
  // Measured on a GPU (Nsight Compute), absent on the CPU backend.
  std::optional<double> dram_pct, achieved_occupancy_pct;
  std::string top_stall;  // the stall reason with the most samples ("long scoreboard", ...)
  // Measured on a GPU, for divergence that predication hides (issue 31): the share of lanes
  // whose predicate is on, over all instructions, and the share of the warp-level shared-memory
  // instructions that had any lane at work (Source Counters' ideal shared wavefronts over the
  // instructions executed). Idle lanes spread over working warps (`tid % (2 * s)`) keep the
  // second high; idle lanes gathered in whole idle warps (`tid < s`) make it low.
  std::optional<double> pred_on_share, shared_working_share;
  // Measured on a GPU (the SASS counters), for data reuse in a matrix product: the bytes its
  // threads loaded from global memory (plain loads and cp.async copies) and from shared memory,
  // every lane's counted, and its FFMA instructions, per thread. The CPU backend has no FMA
  // counter: there the lines' bytes give the loads and the lab's problem the multiply-adds.
  std::optional<double> global_load_bytes, shared_load_bytes, fmas;
};

struct ProfileFigures {
  std::vector<KernelFigures> kernels;
  std::string problem;  // why there are none ("" when there are)
  // The GPU that ran them, where a report says (Nsight Compute's device__attribute_*); "" and 0
  // on the CPU backend, which estimates for an H100.
  std::string device;
  double sms = 0, threads_per_sm = 0, blocks_per_sm = 0, smem_per_sm = 0, regs_per_sm = 0;
};

// One note of the CPU backend's profile build ("cudalab: profile kernel ..."); nullopt when the
// line is not one, or does not read as one (the runner shares a process with student code).
std::optional<KernelFigures> parse_profile_note(const std::string& note);

}  // namespace cudalab
