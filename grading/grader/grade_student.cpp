#include "grade_student.h"

#include <chrono>

#include "build_submission.h"
#include "checker_run.h"
#include "emulator_run.h"
#include "run_report.h"
#include "student_jail.h"
#include "results/emulator_verdicts.h"
#include "safe_io/text.h"

namespace grading {

Built prepare_and_build(const GradingContext& ctx, const Submission& s, EmulatorStep emulator) {
  const auto t0 = std::chrono::steady_clock::now();
  StudentResult r = start_result(ctx, s);
  if (!s.file) return stop(ctx, r, kNoSubmission, s.problem);
  std::string text;
  if (auto stopped = read_and_judge_source(ctx, s, r, text)) return *stopped;
  const fs::path dir = ctx.work / r.student;
  const fs::path src_file = lay_out_folder(ctx, s, dir, text);
  const fs::path runner = dir / "bin" / "lab";  // their kernel runner
  // Asked until the reference's build proved the harness ready in the jail (harness_proven).
  std::optional<PhaseTimer> step;
  if (!ctx.harness_proven) {
    step.emplace(ctx.clock, "build: harness ready");
    require_harness_ready(ctx, s.index, dir, ctx.backend);
  }
  step.emplace(ctx.clock, "build: preprocess");
  if (auto stopped = judge_preprocessed(ctx, s.index, dir, src_file, r)) return *stopped;
  step.reset();
  if (auto stopped = build_runner(ctx, s.index, dir, src_file, runner, r)) return *stopped;
  Built built;
  built.index = s.index;
  built.runner = runner;
  built.runnable = true;
  built.result = std::move(r);
  built.emulator_later = ctx.emulator.enabled && emulator == EmulatorStep::Later;
  if (ctx.emulator.enabled && !built.emulator_later) {
    build_emulator_runner(ctx, s.index, dir, src_file, built);
    // The reference's emulator run is its own (setup.cpp): its length sets check_timeout.
    if (!built.emulator_runner.empty() && ctx.emulator.check_timeout > 0) {
      PhaseTimer step(ctx.clock, "build: emulator checks");
      built.emulator_run = run_emulator(ctx, built, check_args(ctx, built.result, dir, ctx.emulator.check_timeout));
    }
  }
  built.result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return built;
}

void emulate(const GradingContext& ctx, Built& built) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path dir = ctx.work / built.result.student;
  build_emulator_runner(ctx, built.index, dir, dir / "src" / ctx.lab_file_name, built);
  if (!built.emulator_runner.empty()) {
    PhaseTimer step(ctx.clock, "emulator checks");
    built.emulator_run = run_emulator(ctx, built, check_args(ctx, built.result, dir, ctx.emulator.check_timeout));
  } else {
    built.emulator_run = EmulatorRun{std::nullopt, built.emulator_problem, 0};
  }
  built.emulator_run->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void merge_emulator_verdicts(const GradingContext& ctx, const Built& built, StudentResult& r) {
  if (!has_emulator_checks(r.checks)) return;
  if (built.emulator_run && built.emulator_run->checks)
    take_emulator_verdicts(r.checks, *built.emulator_run->checks);
  else
    keep_checker_verdicts(r.checks, built.emulator_run ? built.emulator_run->problem : "the emulator did not run");
  clean_check_words(ctx, ctx.work / r.student, r.checks);
  note_if_stub(r);
  reject_forbidden_calls(ctx, r);
}

StudentResult run_and_finish(const GradingContext& ctx, const Built& built, const std::string& gpu, bool with_timing,
                             bool* emulator_pending) {
  StudentResult r = built.result;
  if (!built.runnable) return r;
  const auto t0 = std::chrono::steady_clock::now();
  r.gpu = gpu;
  const fs::path dir = ctx.work / r.student, run_dir = dir / "run";
  fresh_dir(run_dir, student_uid(ctx, built.index), 0700);
  std::vector<std::string> args = check_args(ctx, r, dir, ctx.check_timeout);
  if (!with_timing) args.push_back("--no-timing");
  std::optional<PhaseTimer> step(std::in_place, ctx.clock, on_gpu(with_timing ? "checks and timing" : "checks", gpu));
  LabRun run = run_checker(ctx, built.runner, dir, args, ctx.run_timeout, gpu, runner_jail(ctx, built, run_dir));
  step.reset();
  note_run_output(ctx, run, dir, r);
  std::string problem;
  std::vector<CheckOutcome> checks = checks_of_run(ctx, run, r, problem);
  if (emulator_pending) *emulator_pending = problem.empty() && built.emulator_later;
  if (problem.empty() && !built.emulator_later)
    add_emulator_verdicts(ctx, built, check_args(ctx, r, dir, ctx.emulator.check_timeout), checks);
  clean_check_words(ctx, dir, checks);
  r.checks = checks;
  r.verdict = kGraded;
  r.reason = problem;
  if (problem.empty()) note_if_stub(r);
  reject_forbidden_calls(ctx, r);
  if (ctx.backend == "cuda") {
    auto it = ctx.reference_ms.find(gpu);
    if (it != ctx.reference_ms.end()) r.reference_ms = it->second;
    auto naive = ctx.reference_naive_ms.find(gpu);
    if (naive != ctx.reference_naive_ms.end()) r.reference_naive_ms = naive->second;
  }
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.graded_at = now_utc_iso8601();
  std::error_code ec;
  fs::remove_all(run_dir, ec);  // nothing a run wrote outlives its grading
  return r;
}

}  // namespace grading
