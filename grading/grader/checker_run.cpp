#include "checker_run.h"

#include "student_jail.h"
#include "verdict_frame.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"

namespace grading {

namespace {

// The checker's own process: trusted, so no memory or file limits of the student's; its
// wall clock is the student's whole run (the runners it starts have theirs in the jail).
Limits checker_limits(const GradingContext& ctx, double timeout) {
  Limits L;
  L.wall_seconds = timeout;
  L.file_bytes = 0;
  L.output_keep_bytes = size_t(ctx.rubric.limits.output_kb) << 10;
  return L;
}

// A private folder for the reports of the runners' jails (written by the jail as root).
fs::path runner_report_path() {
  static const PrivateTempDir dir("cudalab-runner-reports");
  return dir.path() / (random_hex(8) + ".json");
}

}  // namespace

std::vector<std::string> check_args(const GradingContext& ctx, const StudentResult& r, const fs::path& dir,
                                    double check_timeout) {
  std::vector<std::string> args = {"--seed", std::to_string(r.seed), "--check-timeout",
                                   std::to_string(std::max(1, int(check_timeout + 0.5)))};
  args.insert(args.end(), {"--source", (dir / "src" / ctx.lab_file_name).string()});
  if (!ctx.rubric.hidden.empty()) {
    std::string ids;
    for (const auto& id : ctx.rubric.hidden) ids += (ids.empty() ? "" : ",") + id;
    args.insert(args.end(), {"--hidden-checks", ids});
  }
  return args;
}

std::vector<std::string> checker_argv(const GradingContext& ctx, const fs::path& runner,
                                      const std::vector<std::string>& args,
                                      const std::optional<JailSpec>& runner_jail) {
  std::vector<std::string> argv = {ctx.checker.string(), "--runner", runner.string()};
  if (runner_jail)
    for (const auto& word : jail_argv(ctx.jail_program, *runner_jail)) argv.insert(argv.end(), {"--runner-wrap", word});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

LabRun run_checker(const GradingContext& ctx, const fs::path& runner, const fs::path& cwd,
                   const std::vector<std::string>& args, double timeout, const std::string& gpu,
                   const std::optional<JailSpec>& runner_jail) {
  return run_checker_program(ctx, ctx.checker, runner, cwd, args, timeout, gpu, runner_jail);
}

LabRun run_checker_program(const GradingContext& ctx, const fs::path& checker, const fs::path& runner,
                           const fs::path& cwd, const std::vector<std::string>& args, double timeout,
                           const std::string& gpu, const std::optional<JailSpec>& runner_jail) {
  std::optional<JailSpec> jail = runner_jail;
  fs::path report;
  if (jail) {
    report = runner_report_path();
    jail->report_isolation = report.string();
    jail->quiet = true;
    jail->die_with_parent = true;
    if (jail->wall_seconds <= 0) jail->wall_seconds = timeout;
  }
  RunSpec spec;
  spec.argv = checker_argv(ctx, runner, args, jail);
  spec.argv.front() = checker.string();
  spec.env = base_env(ctx, fs::temp_directory_path(), "/usr/local/bin:/usr/bin:/bin");
  if (ctx.backend == "cuda") spec.env.push_back("CUDA_VISIBLE_DEVICES=" + gpu);
  spec.cwd = cwd;
  spec.limits = checker_limits(ctx, timeout);
  spec.verdict_channel = true;  // the checker's; it never passes it on to the runner
  LabRun run;
  run.raw = run_sandboxed(spec);
  if (jail) {
    run.runner_isolation = read_file(report, 4096).value_or("");
    std::error_code ec;
    fs::remove(report, ec);
  }
  Verdict v = find_verdict(run.raw.channel, run.raw.secret);
  run.has_report = v.ok;
  run.report_json = v.json;
  run.problem = v.problem;
  return run;
}

LabRun run_built(const GradingContext& ctx, const Built& built, const std::vector<std::string>& args, double timeout,
                 const std::string& gpu) {
  const fs::path dir = ctx.work / built.result.student, run_dir = dir / "run";
  fresh_dir(run_dir, student_uid(ctx, built.index), 0700);
  std::optional<JailSpec> jail = runner_jail(ctx, built, run_dir);
  if (jail) jail->wall_seconds = timeout;
  LabRun run = run_checker(ctx, built.runner, dir, args, timeout, gpu, jail);
  std::error_code ec;
  fs::remove_all(run_dir, ec);
  return run;
}

}  // namespace grading
