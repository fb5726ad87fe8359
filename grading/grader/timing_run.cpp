#include "timing_run.h"

#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>

#include "checker_run.h"
#include "student_jail.h"
#include "results/lab_report.h"

namespace grading {

// The run's "timing trace:" lines (the checker's --timing-trace), after a line naming the run,
// appended to <work>/timing-trace.log. A diagnosis for the instructor, never read for a grade.
static void keep_timing_trace(const GradingContext& ctx, const std::string& run_name, const std::string& output) {
  static std::mutex mutex;
  std::string lines = "== " + run_name + "\n";
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("timing trace: ", 0) == 0) lines += line + "\n";
  std::lock_guard<std::mutex> lock(mutex);
  std::ofstream(ctx.work / "timing-trace.log", std::ios::app) << lines;
}

void time_student(const GradingContext& ctx, const Built& built, StudentResult& r, const std::string& gpu,
                  const fs::path& gate, TimingRun kind, const std::string& folder) {
  const auto t0 = std::chrono::steady_clock::now();
  PhaseTimer step(ctx.clock, on_gpu(kind == TimingRun::Anchor ? "timing: reference anchors" : "timing", gpu));
  const fs::path dir = ctx.work / r.student, run_dir = dir / folder;
  fresh_dir(run_dir, student_uid(ctx, built.index), 0700);
  std::vector<std::string> args = {"--seed", std::to_string(r.seed), "--timing-only"};
  if (kind == TimingRun::Student) args.push_back("--no-baselines");
  if (!gate.empty()) args.insert(args.end(), {"--gpu-gate", gate.string()});
  if (ctx.timing_trace) args.push_back("--timing-trace");
  // A run that takes turns may first wait out the whole limit of the run ahead of it (one that
  // hangs): that wait is the grader's schedule, not this student's time, so it gets a limit more.
  const double limit = gate.empty() ? ctx.run_timeout : 2 * ctx.run_timeout;
  std::optional<JailSpec> jail = runner_jail(ctx, built, run_dir);
  if (jail) jail->wall_seconds = limit;
  LabRun run = run_checker(ctx, built.runner, dir, args, limit, gpu, jail);
  r.gpu = gpu;
  r.student_ms.reset();
  r.naive_ms.reset();
  if (run.has_report) {
    try {
      LabReport rep = parse_lab_report(run.report_json);
      r.timing_status = rep.timing_status;
      r.timing_note = without_grader_paths(rep.timing_note, ctx, dir);
      r.student_ms = rep.student_ms;
      r.naive_ms = rep.naive_ms;
    } catch (const std::exception& e) {
      r.timing_status = "error";
      r.timing_note = std::string("the timing run's report could not be read (") + e.what() + ")";
    }
  } else {
    r.timing_status = "error";
    r.timing_note = "the timing run " + run.raw.describe() + " without a report";
  }
  auto ref = ctx.reference_ms.find(gpu);
  auto ref_naive = ctx.reference_naive_ms.find(gpu);
  r.reference_ms = ref != ctx.reference_ms.end() ? std::optional<double>(ref->second) : std::nullopt;
  r.reference_naive_ms =
      ref_naive != ctx.reference_naive_ms.end() ? std::optional<double>(ref_naive->second) : std::nullopt;
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (ctx.timing_trace) keep_timing_trace(ctx, r.student + " (" + folder + ")", run.raw.output);
  std::error_code ec;
  fs::remove_all(run_dir, ec);
}

}  // namespace grading
