// The emulator's part of a student: their file built for the CPU backend under its race detector
// (build_emulator_runner), the checks only the emulator can judge run there (run_emulator, on the
// cores the check and timing runs leave: emulator_cores), and its verdicts taken into a run's
// checks (add_emulator_verdicts; results/emulator_verdicts.h says how).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "grading_context.h"

namespace grading {

// Cores the emulator's runs leave to the check and timing runs' own processes: with emulator
// runs on any core, the timing's clock bound (timing_bound.h) refused one run in six on the H100.
inline constexpr unsigned kEmulatorCoresFree = 4;
// The cores the grader may use (its affinity: a Slurm allocation's, say), less the first
// kEmulatorCoresFree, as a --cpu-list; "" where no more than that many are there.
std::string emulator_cores(unsigned& count);

// The same file built for the CPU backend under its race detector beside the runner (ctx.emulator
// on), in the same jail: the emulator judges the checks a GPU (or the plain CPU build) cannot. A
// build that fails here (a file the CPU backend cannot compile) costs nothing: those checks keep
// the checker's verdict, with a note.
void build_emulator_runner(const GradingContext& ctx, unsigned index, const fs::path& dir, const fs::path& src_file,
                           Built& built);

// The emulator run of a built submission (ctx.emulator on, its CPU runner built): the CPU
// backend's checker with `args` (no timing), in the student's jail. The report, or why none.
EmulatorRun run_emulator(const GradingContext& ctx, const Built& built, std::vector<std::string> args);

// The emulator-judged checks' verdicts from an emulator run of the same file (ctx.emulator on):
// the one made after the build, else (a file built before the limit was known) one made now.
void add_emulator_verdicts(const GradingContext& ctx, const Built& built, const std::vector<std::string>& args,
                           std::vector<CheckOutcome>& checks);

}  // namespace grading
