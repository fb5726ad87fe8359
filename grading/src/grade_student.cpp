#include "grade_student.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "lab_report.h"
#include "source_text.h"
#include "static_rules.h"
#include "util.h"
#include "verdict_frame.h"

namespace grading {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

void own_dir(const fs::path& dir, const std::optional<Identity>& as, mode_t mode) {
  fs::create_directories(dir);
  if (as && ::chown(dir.c_str(), as->uid, as->gid) != 0) throw std::runtime_error("cannot chown " + dir.string());
  ::chmod(dir.c_str(), mode);
}

std::vector<std::string> base_env(const GradingContext& ctx, const fs::path& home, const std::string& path) {
  std::vector<std::string> env = {"PATH=" + path, "HOME=" + home.string(), "TMPDIR=" + home.string(), "LANG=C.UTF-8",
                                  "LC_ALL=C.UTF-8"};
  if (!ctx.ld_library_path.empty()) env.push_back("LD_LIBRARY_PATH=" + ctx.ld_library_path);
  return env;
}

Limits build_limits(const GradingContext& ctx) {
  Limits L;
  L.wall_seconds = ctx.build_timeout;
  L.data_bytes = ctx.rubric.limits.memory_mb << 20;
  L.file_bytes = 512ull << 20;
  L.processes = ctx.rubric.limits.processes;
  L.cpu_seconds = uint64_t(ctx.build_timeout * 2) + 10;
  L.output_keep_bytes = size_t(ctx.rubric.limits.output_kb) << 10;
  return L;
}

Limits run_limits(const GradingContext& ctx, double timeout) {
  Limits L;
  L.wall_seconds = timeout;
  // The CUDA driver maps far more address space than it uses, so a GPU run is limited on
  // its data segment instead of its address space.
  if (ctx.backend == "cpu")
    L.address_space_bytes = ctx.rubric.limits.memory_mb << 20;
  else
    L.data_bytes = ctx.rubric.limits.memory_mb << 20;
  L.file_bytes = ctx.rubric.limits.file_mb << 20;
  L.processes = ctx.rubric.limits.processes;
  L.cpu_seconds = uint64_t(timeout * std::max(1u, std::thread::hardware_concurrency())) + 10;
  L.output_keep_bytes = size_t(ctx.rubric.limits.output_kb) << 10;
  return L;
}

StudentResult start_result(const GradingContext& ctx, const Submission& s) {
  StudentResult r;
  r.student = s.student;
  r.origin = s.origin.string();
  r.file = s.file ? s.file->string() : "";
  r.backend = ctx.backend;
  r.notes = s.notes;
  r.key = submission_key(s, ctx.backend);
  r.seed = random_u64() >> 1;  // the harness's options take a signed-safe 63-bit seed
  return r;
}

// Every check of the lab, none run, for results that never reached the lab binary: the
// gradebook keeps one column per check and the maximum stays the same for everyone.
void fill_unrun_checks(const GradingContext& ctx, StudentResult& r, const std::string& why) {
  r.checks.clear();
  for (const auto& ref : ctx.reference_checks) {
    CheckOutcome c;
    c.id = ref.id;
    c.title = ref.title;
    c.status = ref.status == "skipped" ? "skipped" : "not_run";
    c.message = ref.status == "skipped" ? ref.message : why;
    r.checks.push_back(c);
  }
}

Built stop(const GradingContext& ctx, StudentResult r, const char* verdict, const std::string& reason,
           const std::string& rule = "") {
  r.verdict = verdict;
  r.reason = reason;
  r.rule = rule;
  fill_unrun_checks(ctx, r, "not run: " + reason);
  Built b;
  b.result = std::move(r);
  return b;
}

std::string explain_failed_run(const RunResult& raw) {
  if (raw.timed_out)
    return "did not finish within " + std::to_string(int(raw.seconds + 0.5)) +
           " s: an endless loop, or threads waiting at a __syncthreads() that others never reach?";
  if (raw.term_signal == 11 || raw.term_signal == 7)
    return "crashed (" + raw.describe().substr(4) + "): an out-of-bounds memory access?";
  if (raw.term_signal == 6)
    return "stopped itself (" + raw.describe().substr(4) + "): a failed assert(), an uncaught exception, or too much memory?";
  if (raw.term_signal) return raw.describe();
  return raw.describe() + " before the harness finished";
}

}  // namespace

std::string submission_key(const Submission& s, const std::string& backend) {
  if (!s.file) return "none:" + sha256_hex(s.problem) + ":" + backend;
  auto bytes = read_file(*s.file, 16u << 20);
  return sha256_hex(bytes ? *bytes : std::string("unreadable")) + ":" + backend;
}

std::string build_trusted(const GradingContext& ctx, const fs::path& src, const fs::path& out) {
  RunSpec spec;
  spec.argv = {"make", "-s", "--no-print-directory", "-C", ctx.repo.string(), "lab-binary",
               "LAB=" + std::to_string(ctx.lab), "SRC=" + fs::absolute(src).string(), "OUT=" + fs::absolute(out).string(),
               "BACKEND=" + ctx.backend};
  spec.env = base_env(ctx, fs::temp_directory_path(), ctx.path_env);
  spec.cwd = ctx.repo;
  spec.limits.wall_seconds = 1800;  // the first build compiles the whole harness
  spec.limits.file_bytes = 0;
  spec.limits.output_keep_bytes = 1 << 20;
  RunResult r = run_sandboxed(spec);
  if (r.started && !r.timed_out && r.term_signal == 0 && r.exit_code == 0) return "";
  return r.describe() + "\n" + r.output_with_note();
}

Built prepare_and_build(const GradingContext& ctx, const Submission& s) {
  const auto t0 = std::chrono::steady_clock::now();
  StudentResult r = start_result(ctx, s);
  if (!s.file) return stop(ctx, r, kNoSubmission, s.problem);

  auto bytes = read_file(*s.file, (2u << 20) + 1);
  if (!bytes) return stop(ctx, r, kUnreadable, "We could not read your file.");
  SourceText src = normalize_source(*bytes, 2u << 20);
  for (const auto& n : src.notes) r.notes.push_back(n);
  if (!src.ok) return stop(ctx, r, kUnreadable, src.problem);

  auto rejections = check_source(src.text, ctx.rubric.forbid);
  if (!rejections.empty()) return stop(ctx, r, kRejected, rejections.front().reason, rejections.front().rule);

  // A fresh folder per student: nothing of an earlier attempt or another student is reused.
  const fs::path dir = ctx.work / r.student;
  std::error_code ec;
  fs::remove_all(dir, ec);
  own_dir(dir / "src", ctx.build_as, 0711);
  own_dir(dir / "bin", ctx.build_as, 0711);
  ::chmod(dir.c_str(), 0711);
  const fs::path src_file = dir / "src" / ctx.lab_file_name;
  write_file_atomic(src_file, src.text);
  ::chmod(src_file.c_str(), 0644);
  const fs::path binary = dir / "bin" / "lab";

  RunSpec spec;
  spec.argv = {"make", "-s", "--no-print-directory", "-C", ctx.repo.string(), "lab-binary",
               "LAB=" + std::to_string(ctx.lab), "SRC=" + src_file.string(), "OUT=" + binary.string(),
               "BACKEND=" + ctx.backend};
  spec.env = base_env(ctx, dir / "bin", ctx.path_env);
  spec.cwd = ctx.repo;
  spec.limits = build_limits(ctx);
  spec.run_as = ctx.build_as;
  spec.new_namespaces = ctx.namespaces;
  spec.hidden = ctx.hidden;  // the compiler, too, must not reach the reference solutions
  RunResult b = run_sandboxed(spec);
  // The unprivileged build may find the instructor's harness out of date (its sources changed
  // since the grader started) and cannot rebuild it: that is the grader's trouble, not the
  // student's. Rebuild the harness as the grader (once, for everyone) and try again.
  if (b.exit_code != 0 && b.output.find("Permission denied") != std::string::npos &&
      b.output.find("build/") != std::string::npos) {
    static std::mutex harness_mutex;
    {
      std::lock_guard<std::mutex> lock(harness_mutex);
      build_trusted(ctx, ctx.repo / "solutions" / ctx.lab_file_name, ctx.work / kReferenceFolder / "lab");
    }
    b = run_sandboxed(spec);
  }
  // The student sees their own file's name, not the grader's folders.
  std::string log = replace_all(b.output_with_note(), (dir / "src").string() + "/", "");
  log = replace_all(log, (dir / "bin").string() + "/", "");
  r.build_log = clip_text(log, 16 << 10);
  if (!b.started) return stop(ctx, r, kBuildFailed, "The build could not start (" + b.start_error + "); tell your instructor.");
  if (b.timed_out) return stop(ctx, r, kBuildFailed, "Compiling your file took longer than the limit.");
  if (b.exit_code != 0 || b.term_signal != 0 || !fs::exists(binary))
    return stop(ctx, r, kBuildFailed, "Your file does not compile. The compiler's messages are below.");

  // The object is checked too: what the source rules cannot see (macros, mangled names).
  auto tool = [&](std::vector<std::string> argv) {
    RunSpec t;
    t.argv = std::move(argv);
    t.env = base_env(ctx, dir / "bin", ctx.path_env);
    t.cwd = dir / "bin";
    t.limits.wall_seconds = 60;
    t.limits.output_keep_bytes = 64 << 20;
    t.run_as = ctx.build_as;
    RunResult out = run_sandboxed(t);
    return out.output;
  };
  const fs::path object = fs::path(binary.string() + ".o");
  if (fs::exists(object)) {
    auto obj_rejections = check_object(tool({"nm", "-P", "-C", "-g", object.string()}),
                                       tool({"readelf", "-SW", object.string()}), ctx.rubric.forbid);
    if (!obj_rejections.empty())
      return stop(ctx, r, kRejected, obj_rejections.front().reason, obj_rejections.front().rule);
  } else {
    r.notes.push_back("grader: the compiled object was not found, so only the source rules were checked");
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Built built;
  built.result = std::move(r);
  built.binary = binary;
  built.runnable = true;
  return built;
}

LabRun run_lab_binary(const GradingContext& ctx, const fs::path& binary, const fs::path& cwd,
                      const std::vector<std::string>& args, double timeout, const std::string& gpu,
                      const std::optional<Identity>& as) {
  RunSpec spec;
  spec.argv = {binary.string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = base_env(ctx, cwd, "/usr/local/bin:/usr/bin:/bin");
  if (ctx.backend == "cuda") spec.env.push_back("CUDA_VISIBLE_DEVICES=" + gpu);
  spec.cwd = cwd;
  spec.limits = run_limits(ctx, timeout);
  spec.run_as = as;
  spec.new_namespaces = ctx.namespaces;
  spec.hidden = ctx.hidden;
  spec.verdict_channel = true;
  LabRun run;
  run.raw = run_sandboxed(spec);
  Verdict v = find_verdict(run.raw.channel, run.raw.secret);
  run.has_report = v.ok;
  run.report_json = v.json;
  run.problem = v.problem;
  return run;
}

StudentResult run_and_finish(const GradingContext& ctx, Built built, const std::string& gpu) {
  StudentResult r = std::move(built.result);
  if (!built.runnable) return r;
  const auto t0 = std::chrono::steady_clock::now();
  r.gpu = gpu;
  const fs::path run_dir = ctx.work / r.student / "run";
  std::error_code ec;
  fs::remove_all(run_dir, ec);
  own_dir(run_dir, ctx.run_as, 0700);

  const std::string seed = std::to_string(r.seed);
  LabRun full = run_lab_binary(ctx, built.binary, run_dir, {"--seed", seed}, ctx.run_timeout, gpu, ctx.run_as);
  r.run_log = clip_text(full.raw.output_with_note(), 32 << 10);
  if (full.raw.output_truncated())
    r.notes.push_back("Your program printed " + std::to_string(full.raw.output_bytes) +
                      " bytes; only the beginning was kept.");

  std::vector<CheckOutcome> checks;
  if (full.has_report) {
    try {
      LabReport rep = parse_lab_report(full.report_json);
      checks = rep.checks;
      r.timing_status = rep.timing_status;
      r.timing_note = rep.timing_note;
      r.student_ms = rep.student_ms;
    } catch (const std::exception& e) {
      full.has_report = false;
      full.problem = e.what();
    }
  }
  std::string full_run_problem;
  if (!full.has_report) {
    // No report: the program died, hung or left early (its own reason), or the channel
    // carried something that cannot be believed (the channel's reason).
    const bool died = full.raw.timed_out || full.raw.term_signal || full.problem.find("ended before") != std::string::npos;
    full_run_problem = died ? "your program " + explain_failed_run(full.raw) : full.problem;
    r.notes.push_back("The full run of the checks stopped (" + full_run_problem +
                      "), so each check was then run alone in its own process.");
    for (const auto& ref : ctx.reference_checks) {
      CheckOutcome c = ref;
      c.details.clear();
      c.status = ref.status == "skipped" ? "skipped" : "not_run";
      checks.push_back(c);
    }
  }

  // Checks the full run could not finish (a lost GPU context, a crash, a hang) run again,
  // each in a fresh process with its own time limit.
  int reruns = 0;
  double budget = std::max(ctx.run_timeout, 4 * ctx.check_timeout);
  for (auto& c : checks) {
    if (c.status != "not_run") continue;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (spent > ctx.run_timeout + budget) {
      c.message = "not run: the time allowed for your submission was used up by the checks before it";
      continue;
    }
    ++reruns;
    LabRun one = run_lab_binary(ctx, built.binary, run_dir, {"--seed", seed, "--only", c.id, "--no-timing"},
                                ctx.check_timeout, gpu, ctx.run_as);
    c.own_process = true;
    bool found = false;
    if (one.has_report) {
      try {
        for (const auto& o : parse_lab_report(one.report_json).checks)
          if (o.id == c.id) {
            c.status = o.status;
            c.message = o.message;
            c.details = o.details;
            c.own_process = true;
            found = true;
          }
      } catch (const std::exception&) {
      }
    }
    if (!found) {
      c.status = "error";
      c.message = "Run alone, this check " + explain_failed_run(one.raw);
      c.details.clear();
      std::string tail = one.raw.output_with_note();
      if (!tail.empty()) c.details.push_back("last output: " + clip_text(tail.substr(tail.size() > 600 ? tail.size() - 600 : 0), 600));
    }
    if (c.status == "not_run") c.status = "error";  // lost again on its own: it is this check's fault
  }
  if (reruns > 0 && full.has_report)
    r.notes.push_back(std::to_string(reruns) + " check(s) that the full run could not finish were run again, each alone.");

  r.checks = checks;
  r.verdict = kGraded;
  r.reason = full_run_problem;
  if (ctx.backend == "cuda") {
    auto it = ctx.reference_ms.find(gpu);
    if (it != ctx.reference_ms.end()) r.reference_ms = it->second;
  }
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.graded_at = now_utc_iso8601();
  return r;
}

}  // namespace grading
