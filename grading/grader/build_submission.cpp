#include "build_submission.h"

#include <sys/stat.h>
#include <unistd.h>

#include "source_text.h"
#include "static_rules.h"
#include "student_jail.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"
#include "safe_io/text.h"

namespace grading {

namespace {

// The preprocessor alone, with the lab's include folders: its dependency list (-MD: every
// file it opened, system headers included) and its expanded text (macros applied, line
// markers naming each line's file). The CPU backend's folders serve both backends: the
// rules judge the lab file, and its CUDA spellings preprocess the same there.
std::vector<std::string> preprocess_command(const GradingContext& ctx, const fs::path& src, const fs::path& deps,
                                            const fs::path& expanded) {
  return {"g++",
          "-std=c++20",
          "-DCUDALAB_BACKEND_CPU=1",
          "-I" + (ctx.repo / "harness/runner/emulator/include").string(),
          "-I" + (ctx.repo / "harness/include").string(),
          "-E",
          "-MD",
          "-MF",
          deps.string(),
          "-o",
          expanded.string(),
          "-x",
          "c++",
          src.string()};
}

// The CUDA compiler for a jailed make, by absolute path (a jail's PATH is its own).
std::string nvcc_setting(const GradingContext& ctx) {
  return "NVCC=" + (ctx.nvcc.empty() ? std::string("nvcc") : ctx.nvcc);
}

// Where an opened header may live: the lab's own headers and the system's.
std::vector<std::string> allowed_include_roots(const GradingContext& ctx) {
  return {(ctx.repo / "harness/include").string() + "/", (ctx.repo / "harness/runner/emulator/include").string() + "/",
          "/usr/"};
}

}  // namespace

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

namespace {

// Every check of the lab, none run, for results that never reached the lab binary: the
// gradebook keeps one column per check and the maximum stays the same for everyone.
void fill_unrun_checks(const GradingContext& ctx, StudentResult& r, const std::string& why) {
  r.checks.clear();
  for (const auto& ref : ctx.reference_checks) {
    CheckOutcome c;
    c.id = ref.id;
    c.title = ref.title;
    c.status = ref.status == "skipped" ? "skipped" : "not_run";
    c.cause = ref.status == "skipped" ? ref.cause : "no_runner";
    c.judged_by = ref.judged_by;
    c.message = ref.status == "skipped" ? ref.message : why;
    r.checks.push_back(c);
  }
}

}  // namespace

Built stop(const GradingContext& ctx, StudentResult r, const char* verdict, const std::string& reason,
           const std::string& rule) {
  r.verdict = verdict;
  r.reason = reason;
  r.rule = rule;
  fill_unrun_checks(ctx, r, "not run: " + reason);
  Built b;
  b.result = std::move(r);
  return b;
}

std::string submission_key(const Submission& s, const std::string& backend) {
  if (!s.file) return "none:" + sha256_hex(s.problem) + ":" + backend;
  // Read as the submission is read: never through a link, never blocking on a FIFO.
  std::string why;
  auto bytes = read_submitted_file(*s.file, 16u << 20, &why);
  return sha256_hex(bytes ? *bytes : "unreadable: " + why) + ":" + backend;
}

std::vector<std::string> build_settings(const std::string& build) {
  if (build == kEmulatorBuild) return {"BACKEND=cpu", "CHECK=race"};
  if (build == kProfileBuild) return {"BACKEND=cpu", "PROFILE=1"};
  return {"BACKEND=" + build};
}

std::string run_trusted_make(const GradingContext& ctx, const std::vector<std::string>& targets, std::string* output,
                             const std::string& backend) {
  RunSpec spec;
  spec.argv = {"make", "-s", "--no-print-directory", "-C", ctx.repo.string(), "LAB=" + std::to_string(ctx.lab)};
  for (const std::string& v : build_settings(backend.empty() ? ctx.backend : backend)) spec.argv.push_back(v);
  spec.argv.insert(spec.argv.end(), targets.begin(), targets.end());
  spec.env = base_env(ctx, fs::temp_directory_path(), ctx.path_env);
  spec.cwd = ctx.repo;
  spec.limits.wall_seconds = 1800;  // the first build compiles the whole harness
  spec.limits.file_bytes = 0;
  spec.limits.output_keep_bytes = 1 << 20;
  RunResult r = run_sandboxed(spec);
  if (output) *output = r.output;
  if (r.started && !r.timed_out && r.term_signal == 0 && r.exit_code == 0) return "";
  return r.describe() + "\n" + r.output_with_note();
}

void require_harness_ready(const GradingContext& ctx, unsigned index, const fs::path& dir, const std::string& backend) {
  std::vector<std::string> argv = {"make",
                                   "-s",
                                   "--no-print-directory",
                                   "-C",
                                   ctx.repo.string(),
                                   "grading-runner-check",
                                   "LAB=" + std::to_string(ctx.lab),
                                   nvcc_setting(ctx)};
  for (const std::string& v : build_settings(backend)) argv.push_back(v);
  RunResult ready = run_in_build_jail(ctx, index, dir, argv, ctx.build_timeout, 16 << 10);
  if (!ready.started) throw std::runtime_error("a student's build jail could not start: " + ready.start_error);
  if (ready.timed_out || ready.exit_code != 0 || ready.term_signal != 0)
    throw std::runtime_error(
        "the course's harness is not ready for a student's build (grader setup, not the student's file; " +
        ready.describe() + "):\n" + ready.output_with_note());
}

std::vector<std::string> lab_runner_make(const GradingContext& ctx, const fs::path& src, const fs::path& out,
                                         const std::string& backend) {
  std::vector<std::string> argv = {"make",
                                   "-s",
                                   "--no-print-directory",
                                   "-C",
                                   ctx.repo.string(),
                                   "lab-runner",
                                   "LAB=" + std::to_string(ctx.lab),
                                   "SRC=" + src.string(),
                                   "OUT=" + out.string(),
                                   nvcc_setting(ctx)};
  for (const std::string& v : build_settings(backend)) argv.push_back(v);
  return argv;
}

std::optional<Built> read_and_judge_source(const GradingContext& ctx, const Submission& s, StudentResult& r,
                                           std::string& text) {
  std::string why;
  auto bytes = read_submitted_file(*s.file, 2u << 20, &why);
  if (!bytes) return stop(ctx, r, kUnreadable, "We could not read your file: " + why + ".");
  SourceText src = normalize_source(*bytes, 2u << 20);
  for (const auto& n : src.notes) r.notes.push_back(n);
  if (!src.ok) return stop(ctx, r, kUnreadable, src.problem);
  auto rejections = check_source(src.text, ctx.rubric.forbid);
  if (!rejections.empty()) return stop(ctx, r, kRejected, rejections.front().reason, rejections.front().rule);
  text = std::move(src.text);
  return std::nullopt;
}

fs::path lay_out_folder(const GradingContext& ctx, const Submission& s, const fs::path& dir, const std::string& text) {
  fresh_dir(dir, std::nullopt, 0711);
  fresh_dir(dir / "src", std::nullopt, 0755);
  fresh_dir(dir / "bin", student_uid(ctx, s.index), 0700);
  const fs::path src_file = dir / "src" / ctx.lab_file_name;
  write_file_atomic(src_file, text);
  ::chmod(src_file.c_str(), 0644);
  return src_file;
}

std::optional<Built> judge_preprocessed(const GradingContext& ctx, unsigned index, const fs::path& dir,
                                        const fs::path& src_file, StudentResult& r) {
  const fs::path deps = dir / "bin" / "deps.d", expanded = dir / "bin" / "expanded.ii";
  RunResult pre = run_in_build_jail(ctx, index, dir, preprocess_command(ctx, src_file, deps, expanded),
                                    ctx.build_timeout, 64 << 10);
  if (!pre.started || pre.timed_out || pre.exit_code != 0) return std::nullopt;
  const auto uid = student_uid(ctx, index);
  auto d = read_submitted_file(deps, 4u << 20, nullptr, uid);
  auto e = read_submitted_file(expanded, 64u << 20, nullptr, uid);
  if (!d || !e) return stop(ctx, r, kBuildFailed, "The preprocessor's output could not be read; tell your instructor.");
  auto seen = check_compiler_view(*e, *d, src_file.string(), allowed_include_roots(ctx));
  if (!seen.empty()) return stop(ctx, r, kRejected, seen.front().reason, seen.front().rule);
  return std::nullopt;
}

std::optional<Built> build_runner(const GradingContext& ctx, unsigned index, const fs::path& dir,
                                  const fs::path& src_file, const fs::path& runner, StudentResult& r) {
  std::optional<PhaseTimer> compile(std::in_place, ctx.clock, "build: compile");
  RunResult b = run_in_build_jail(ctx, index, dir, lab_runner_make(ctx, src_file, runner, ctx.backend),
                                  ctx.build_timeout, size_t(ctx.rubric.limits.output_kb) << 10);
  compile.reset();
  // The student sees their own file's name, not the grader's folders; what the compiler
  // printed is only shown, never acted on.
  r.build_log = clip_text(without_grader_paths(b.output_with_note(), ctx, dir), 16 << 10);
  // A jail that could not start is the grader's trouble, not a verdict: no result is saved.
  if (!b.started) throw std::runtime_error("a student's build jail could not start: " + b.start_error);
  if (b.timed_out) return stop(ctx, r, kBuildFailed, "Compiling your file took longer than the limit.");
  if (b.memory_limit_hit) return stop(ctx, r, kBuildFailed, "Compiling your file needed more memory than the limit.");
  if (b.exit_code != 0 || b.term_signal != 0 || !fs::exists(runner)) {
    // The link contract's verdict is data its tool leaves beside the object (mk/contract.mk).
    std::error_code no_file;
    const auto breaches = fs::file_size(fs::path(runner.string() + ".o.breaches"), no_file);
    if (!no_file && breaches > 0)
      return stop(ctx, r, kRejected,
                  "Your file breaks the lab's link contract: it defines or calls something a lab file may not. "
                  "The messages below name each one, where your file uses it, why, and what to write instead.",
                  "link_contract");
    return stop(ctx, r, kBuildFailed, "Your file does not compile. The compiler's messages are below.");
  }
  const fs::path object = fs::path(runner.string() + ".o");
  PhaseTimer step(ctx.clock, "build: object rules");
  if (!fs::exists(object)) {
    r.notes.push_back("grader: the compiled object was not found, so only the source rules were checked");
    return std::nullopt;
  }
  auto obj_rejections = check_object(
      run_in_build_jail(ctx, index, dir, {"nm", "-P", "-C", "-g", object.string()}, 60, 64 << 20).output,
      run_in_build_jail(ctx, index, dir, {"readelf", "-SW", object.string()}, 60, 64 << 20).output, ctx.rubric.forbid);
  if (!obj_rejections.empty())
    return stop(ctx, r, kRejected, obj_rejections.front().reason, obj_rejections.front().rule);
  return std::nullopt;
}

}  // namespace grading
