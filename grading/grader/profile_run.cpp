#include "profile_run.h"

#include <chrono>

#include "build_submission.h"
#include "checker_run.h"
#include "student_jail.h"
#include "results/lab_report.h"
#include "safe_io/text.h"

namespace grading {

// The profile section's longest text kept (the checker's digest: four sentences and a table).
constexpr size_t kProfileTextBytes = 4 << 10;

void add_profile(const GradingContext& ctx, unsigned index, StudentResult& r) {
  if (!ctx.profile.asked || r.verdict != kGraded || r.checks.empty()) return;
  for (const auto& c : r.checks)
    if (c.status != "pass" && c.status != "skipped") return;
  const auto t0 = std::chrono::steady_clock::now();
  auto not_made = [&](const std::string& why) {
    r.profile_status = "not_made";
    r.profile_text = clip_text(clean_line(why), 512);
    r.profile_first.clear();
    r.profile_size.clear();
  };
  if (!ctx.profile.problem.empty()) return not_made(ctx.profile.problem);
  const fs::path dir = ctx.work / r.student, src_file = dir / "src" / ctx.lab_file_name;
  const fs::path runner = dir / "bin" / "lab-profile";
  {
    PhaseTimer step(ctx.clock, "profile: build");
    RunResult b = run_in_build_jail(ctx, index, dir, lab_runner_make(ctx, src_file, runner, kProfileBuild),
                                    ctx.build_timeout, 16 << 10);
    if (!b.started) return not_made("the grader could not start its build (" + b.start_error + ")");
    if (b.timed_out || b.exit_code != 0 || b.term_signal != 0 || !fs::exists(runner))
      return not_made("your file did not build as a profile runner for the CPU backend (" + b.describe() + ")");
  }
  PhaseTimer step(ctx.clock, "profile: run");
  const fs::path run_dir = dir / "profile";
  fresh_dir(run_dir, student_uid(ctx, index), 0700);
  Built built;
  built.index = index;
  built.runner = runner;
  built.result.student = r.student;
  std::optional<JailSpec> jail = runner_jail(ctx, built, run_dir);
  if (jail) jail->gpu = false;  // the emulator: no GPU in its jail
  // Only the checks of one element run (the profile needs a correct call, not the whole suite;
  // tests/planted/run.py profile does the same), then the two profile runners: the student's in
  // their jail, the reference's (the course's own, built by the grader) without one.
  std::vector<std::string> args = check_args(ctx, r, dir, std::max(30.0, ctx.check_timeout));
  args.insert(args.end(), {"--no-timing", "--largest", "1", "--profile-runner", runner.string(), "--profile-reference",
                           ctx.profile.reference.string(), "--profile-reference-unwrapped"});
  LabRun run = run_checker_program(ctx, ctx.profile.checker, runner, dir, args, ctx.run_timeout, "", jail);
  std::error_code ec;
  fs::remove_all(run_dir, ec);
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.has_report) return not_made("the profile's run " + run.raw.describe() + " without a report");
  std::optional<LabProfile> p;
  try {
    p = parse_lab_report(run.report_json).profile;
  } catch (const std::exception& e) {
    return not_made(std::string("the profile's report could not be read (") + e.what() + ")");
  }
  if (!p) return not_made("the profile's report has no profile section");
  if (!p->ran) return not_made(without_grader_paths(p->problem, ctx, dir));
  // The checker's words (its digest of the runners' counts): data all the same, bounded and cleaned.
  r.profile_status = "made";
  r.profile_size = clip_text(clean_line(p->size), 64);
  r.profile_first = clip_text(clean_line(without_grader_paths(p->first_sentence, ctx, dir)), 1024);
  r.profile_text = clip_text(without_grader_paths(p->text, ctx, dir), kProfileTextBytes);
}

}  // namespace grading
