#include "emulator_run.h"

#include <sched.h>

#include <chrono>

#include "build_submission.h"
#include "checker_run.h"
#include "student_jail.h"
#include "results/emulator_verdicts.h"
#include "results/lab_report.h"

namespace grading {

std::string emulator_cores(unsigned& count) {
  cpu_set_t mine;
  std::vector<int> cores;
  if (::sched_getaffinity(0, sizeof mine, &mine) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mine)) cores.push_back(c);
  if (cores.size() <= kEmulatorCoresFree) {
    count = std::max<unsigned>(1, unsigned(cores.size()) / 2);
    return "";
  }
  std::string list;
  for (size_t i = kEmulatorCoresFree; i < cores.size(); ++i)
    list += (list.empty() ? "" : ",") + std::to_string(cores[i]);
  count = unsigned(cores.size() - kEmulatorCoresFree);
  return list;
}

void build_emulator_runner(const GradingContext& ctx, unsigned index, const fs::path& dir, const fs::path& src_file,
                           Built& built) {
  PhaseTimer step(ctx.clock, "build: for the emulator");
  if (!ctx.harness_proven) require_harness_ready(ctx, index, dir, kEmulatorBuild);
  const fs::path out = dir / "bin" / "lab-cpu";
  RunResult b = run_in_build_jail(ctx, index, dir, lab_runner_make(ctx, src_file, out, kEmulatorBuild),
                                  ctx.build_timeout, 16 << 10);
  if (!b.started) throw std::runtime_error("a student's build jail could not start: " + b.start_error);
  if (b.started && !b.timed_out && b.exit_code == 0 && b.term_signal == 0 && fs::exists(out)) {
    built.emulator_runner = out;
  } else {
    built.emulator_problem = "your file did not build for the CPU backend (" + b.describe() + ")";
    built.emulator_build_output = b.output_with_note();
  }
}

EmulatorRun run_emulator(const GradingContext& ctx, const Built& built, std::vector<std::string> args) {
  const fs::path dir = ctx.work / built.result.student, run_dir = dir / "emulator";
  fresh_dir(run_dir, student_uid(ctx, built.index), 0700);
  Built cpu = built;
  cpu.runner = built.emulator_runner;
  std::optional<JailSpec> jail = runner_jail(ctx, cpu, run_dir);
  if (jail) {
    jail->gpu = false;  // the emulator runs on the CPU: no GPU device in its jail
    jail->cpu_weight = 10;  // background work: the checks' and the timing's runs come first
    jail->cpu_list = ctx.emulator.cores;  // never on the cores the check and timing runs keep
  }
  args.push_back("--no-timing");
  // The small checks only (the rubric's limits.emulator_largest): a barrier some threads skip, or
  // a race, shows in them as well as in the large ones, and the emulator then costs about a second
  // of CPU a student, not ten. No --schedule: each check runs in order and again reversed, so a
  // race the detector names fails a check only when it changes the answers, and that verdict
  // (emulator_verdicts.h) is the same wherever and however often the file is graded.
  args.insert(args.end(), {"--largest", std::to_string(ctx.rubric.limits.emulator_largest)});
  const auto t0 = std::chrono::steady_clock::now();
  LabRun run = run_checker_program(ctx, ctx.emulator.checker, cpu.runner, dir, args, ctx.run_timeout, "", jail);
  EmulatorRun out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::error_code ec;
  fs::remove_all(run_dir, ec);
  if (!run.has_report) {
    out.problem = "the CPU backend's run " + run.raw.describe() + " without a report";
    return out;
  }
  out.checks = parse_lab_report(run.report_json).checks;  // a report of another schema throws: the grader's trouble
  return out;
}

void add_emulator_verdicts(const GradingContext& ctx, const Built& built, const std::vector<std::string>& args,
                           std::vector<CheckOutcome>& checks) {
  if (!ctx.emulator.enabled || !has_emulator_checks(checks)) return;
  if (built.emulator_runner.empty()) return keep_checker_verdicts(checks, built.emulator_problem);
  std::optional<PhaseTimer> step;
  if (!built.emulator_run) step.emplace(ctx.clock, "checks: emulator");
  const EmulatorRun emu = built.emulator_run ? *built.emulator_run : run_emulator(ctx, built, args);
  if (emu.checks)
    take_emulator_verdicts(checks, *emu.checks);
  else
    keep_checker_verdicts(checks, emu.problem);
}

}  // namespace grading
