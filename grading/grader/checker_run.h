// Running the trusted checker on a student's runner: its command line and arguments, its
// process (unjailed, holding the verdict channel) and the runner's jail it passes on.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grading_context.h"
#include "process.h"

namespace grading {

// One run of the trusted checker, unjailed, holding the verdict channel; it starts the
// kernel runner itself, inside `runner_jail` when one is given (as --runner-wrap words).
// The verdict is the checker's one frame: the runner never holds the channel.
struct LabRun {
  RunResult raw;  // the checker's process; its output has the runner's mixed in
  bool has_report = false;
  std::string problem;  // why there is no report
  std::string report_json;
  std::string runner_isolation;  // the jail's report of the last runner started (JSON), if jailed
};
LabRun run_checker(const GradingContext& ctx, const std::filesystem::path& runner, const std::filesystem::path& cwd,
                   const std::vector<std::string>& args, double timeout, const std::string& gpu,
                   const std::optional<JailSpec>& runner_jail);
// The same with another checker program than ctx.checker (the CPU backend's, for the emulator).
LabRun run_checker_program(const GradingContext& ctx, const std::filesystem::path& checker,
                           const std::filesystem::path& runner, const std::filesystem::path& cwd,
                           const std::vector<std::string>& args, double timeout, const std::string& gpu,
                           const std::optional<JailSpec>& runner_jail);

// One run of the checker against a built submission's runner, exactly as a student's runs go
// (their jail, a fresh run/ folder, removed after), with the arguments given and `timeout`
// for the whole run: the reference's runs go so.
LabRun run_built(const GradingContext& ctx, const Built& built, const std::vector<std::string>& args, double timeout,
                 const std::string& gpu);

// The checker's command line for one run (exposed for tests): checker --runner R
// [--runner-wrap WORD]... args...
std::vector<std::string> checker_argv(const GradingContext& ctx, const std::filesystem::path& runner,
                                      const std::vector<std::string>& args, const std::optional<JailSpec>& runner_jail);

// The checker's arguments for a student's checks: their seed, the per-check limit, the lab file
// (read from here, not from the runner's word) and the hidden checks, which it runs last while
// it keeps every word of the runner's out of its report (issue 16).
std::vector<std::string> check_args(const GradingContext& ctx, const StudentResult& r, const fs::path& dir,
                                    double check_timeout);

}  // namespace grading
