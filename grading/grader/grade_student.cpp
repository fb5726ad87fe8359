#include "grade_student.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "source_text.h"
#include "static_rules.h"
#include "verdict_frame.h"
#include "jail/cgroup.h"
#include "results/emulator_verdicts.h"
#include "results/lab_report.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"
#include "safe_io/text.h"

namespace grading {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// A folder of the work tree, made afresh: owned by the student's uid when `uid` is given
// (their build writes there), by the grader otherwise.
void fresh_dir(const fs::path& dir, std::optional<uid_t> uid, mode_t mode) {
  std::error_code ec;
  fs::remove_all(dir, ec);  // never follows a link the student left
  fs::create_directories(dir);
  if (uid && ::chown(dir.c_str(), *uid, *uid) != 0) throw std::runtime_error("cannot chown " + dir.string());
  ::chmod(dir.c_str(), mode);
}

std::optional<uid_t> student_uid(const GradingContext& ctx, unsigned index) {
  if (!ctx.jailed) return std::nullopt;
  return uid_t(ctx.uid_base + index);
}

// What the student may see of the grader's paths in their logs: nothing.
std::string without_grader_paths(std::string log, const GradingContext& ctx, const fs::path& dir) {
  for (const fs::path& p : {dir / "src", dir / "bin", dir / "run", dir}) log = replace_all(log, p.string() + "/", "");
  log = replace_all(log, ctx.repo.string() + "/", "");
  log = replace_all(log, ctx.work.string() + "/", "");
  return clean_text(log);
}

std::vector<std::string> base_env(const GradingContext& ctx, const fs::path& home, const std::string& path) {
  std::vector<std::string> env = {"PATH=" + path, "HOME=" + home.string(), "TMPDIR=" + home.string(), "LANG=C.UTF-8",
                                  "LC_ALL=C.UTF-8"};
  if (!ctx.ld_library_path.empty()) env.push_back("LD_LIBRARY_PATH=" + ctx.ld_library_path);
  env.insert(env.end(), ctx.build_env.begin(), ctx.build_env.end());
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
    c.cause = ref.status == "skipped" ? ref.cause : "no_runner";
    c.judged_by = ref.judged_by;
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

// Why the checker left no report: it was stopped at the student's wall clock (every check
// hung, or the runner would not start), or something went wrong on the grader's side.
std::string explain_no_report(const GradingContext& ctx, const LabRun& run) {
  if (run.raw.timed_out)
    return "your code used up the time allowed for the whole run (" + std::to_string(int(ctx.run_timeout + 0.5)) +
           " s) before every check was done: endless loops, or threads waiting at a __syncthreads() that others never "
           "reach?";
  if (!run.raw.started) return "the checker could not start (" + run.raw.start_error + "); tell your instructor";
  return "the checker " + run.raw.describe() + " without a report (" + run.problem + "); tell your instructor";
}

}  // namespace

// After grading as root: nothing of the jails is left (their cgroups), and the work folder
// belongs to whoever owns the checkout again, so that their `make clean` can remove it.
void finish_work_folder(const GradingContext& ctx) {
  if (!ctx.jailed) return;
  remove_stale_job_cgroups();
  struct stat st {};
  if (::stat(ctx.repo.c_str(), &st) != 0 || st.st_uid == 0) return;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(ctx.work, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec))
    if (::lchown(it->path().c_str(), st.st_uid, st.st_gid) != 0) continue;  // best effort: a file gone meanwhile
  if (::lchown(ctx.work.c_str(), st.st_uid, st.st_gid) != 0) return;
}

JailSpec student_jail(const GradingContext& ctx, unsigned index) {
  JailSpec j;
  j.uid = j.gid = uid_t(ctx.uid_base + index);
  j.allow_degraded = ctx.allow_degraded;
  j.gpu = ctx.backend == "cuda";
  j.cpu_weight = 100;  // every student the same share, whatever they spawn
  j.tmp_mb = 256;
  return j;
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

namespace {

// One command of a student's build, in their jail: their uid, their folder, the course's build
// files read-only, nothing of the reference.
RunResult run_in_build_jail(const GradingContext& ctx, unsigned index, const fs::path& dir,
                            std::vector<std::string> argv, double timeout, size_t keep) {
  RunSpec spec;
  spec.argv = std::move(argv);
  spec.env = base_env(ctx, dir / "bin", ctx.path_env);
  spec.cwd = ctx.repo;
  spec.limits = build_limits(ctx);
  spec.limits.wall_seconds = timeout;
  spec.limits.output_keep_bytes = keep;
  if (ctx.jailed) {
    JailSpec j = student_jail(ctx, index);
    j.ro_bind = ctx.build_view;
    j.ro_bind.push_back((dir / "src").string());
    j.bind = {(dir / "bin").string()};
    j.hide = ctx.build_hide;
    spec.jail = j;
    spec.jail_program = ctx.jail_program;
  }
  return run_sandboxed(spec);
}

// The course's side first, in the student's jail: every prerequisite of a build for `backend` is
// built and in view (mk/grading.mk). A build that had to make one could only fail, and blame the
// file. Nothing of the student's is involved yet, so the answer is the grader's to act on.
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

// `make lab-runner` of the student's file for `backend`, into `out`.
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

// The file read, decoded and held to the source rules: its text, or the result that stops here.
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

// A fresh folder per student: nothing of an earlier attempt or another student is reused. The
// source and the folder are the grader's; only bin/ is the student's to write. Returns the source.
fs::path lay_out_folder(const GradingContext& ctx, const Submission& s, const fs::path& dir, const std::string& text) {
  fresh_dir(dir, std::nullopt, 0711);
  fresh_dir(dir / "src", std::nullopt, 0755);
  fresh_dir(dir / "bin", student_uid(ctx, s.index), 0700);
  const fs::path src_file = dir / "src" / ctx.lab_file_name;
  write_file_atomic(src_file, text);
  ::chmod(src_file.c_str(), 0644);
  return src_file;
}

// What the compiler really opens and reads: the preprocessor's own dependency list and its
// expanded text, judged before anything is compiled (static_rules.h). A file that does not
// preprocess does not compile either: the build says why.
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

// The kernel runner itself (`make lab-runner`), then its object held to the rules the source
// rules cannot see (macros, mangled names).
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

// The checker's arguments for a student's checks: their seed, the per-check limit, the lab file
// (read from here, not from the runner's word) and the hidden checks, which it runs last while
// it keeps every word of the runner's out of its report (issue 16).
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

// The same file built for the CPU backend under its race detector beside the runner (ctx.emulator
// on), in the same jail: the emulator judges the checks a GPU (or the plain CPU build) cannot. A
// build that fails here (a file the CPU backend cannot compile) costs nothing: those checks keep
// the checker's verdict, with a note.
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

}  // namespace

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

std::vector<std::string> checker_argv(const GradingContext& ctx, const fs::path& runner,
                                      const std::vector<std::string>& args,
                                      const std::optional<JailSpec>& runner_jail) {
  std::vector<std::string> argv = {ctx.checker.string(), "--runner", runner.string()};
  if (runner_jail)
    for (const auto& word : jail_argv(ctx.jail_program, *runner_jail)) argv.insert(argv.end(), {"--runner-wrap", word});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::string without_hidden_check_ids(std::string text, const std::set<std::string>& hidden) {
  // Whole ids only: a hidden "million" is not inside a visible "million_and_change".
  auto id_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const std::string replacement = "a hidden check";
  for (const auto& id : hidden) {
    for (const std::string& from : {"check " + id, id}) {
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
        const size_t end = at + from.size();
        if ((at > 0 && id_char(text[at - 1])) || (end < text.size() && id_char(text[end]))) {
          at = end;
          continue;
        }
        text.replace(at, from.size(), replacement);
        at += replacement.size();
      }
    }
  }
  return text;
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

namespace {

// The student's runner, as the checker starts it: jailed as the student's own uid, seeing its
// own program (read-only) and `run_dir` to work in, a private tmpfs as large as its /tmp (not
// the host's disk, which pieces each under the file limit would fill); nothing else. The
// checker itself runs as the grader, outside.
std::optional<JailSpec> runner_jail(const GradingContext& ctx, const Built& built, const fs::path& run_dir) {
  if (!ctx.jailed) return std::nullopt;
  JailSpec jail = student_jail(ctx, built.index);
  jail.ro_bind = {built.runner.parent_path().string()};
  // The CUDA runtime the runner links (found through its rpath in the toolkit's folder).
  if (!ctx.nvcc.empty()) jail.ro_bind.push_back(fs::path(ctx.nvcc).parent_path().parent_path().string());
  jail.scratch = {run_dir.string()};  // (without namespaces, the folder itself: made for that)
  jail.chdir = run_dir.string();
  jail.memory_mb = ctx.rubric.limits.memory_mb;
  jail.pids = ctx.rubric.limits.processes;
  jail.file_mb = ctx.rubric.limits.file_mb;
  jail.wall_seconds = ctx.run_timeout;
  if (!ctx.ld_library_path.empty()) jail.env.push_back("LD_LIBRARY_PATH=" + ctx.ld_library_path);
  return jail;
}

}  // namespace

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

namespace {

// Whether the jail's report (its JSON) says the memory limit was reached: a field, not a sentence.
bool memory_limit_reached(const std::string& isolation_report) {
  const nlohmann::json j = nlohmann::json::parse(isolation_report, nullptr, false);
  return j.is_object() && j.value("memory_limit_reached", false);
}

// What the run's output and limits tell the student: the output is the checker's report plus
// whatever their code printed (the runner shares its stdout and stderr), kept only when no hidden
// check ran (either could describe a hidden check's inputs); never acted on.
void note_run_output(const GradingContext& ctx, const LabRun& run, const fs::path& dir, StudentResult& r) {
  r.run_log = ctx.rubric.hidden.empty()
                  ? clip_text(without_grader_paths(run.raw.output_with_note(), ctx, dir), 32 << 10)
                  : std::string();
  // How much it printed is the program's choice: with hidden checks in the run, the count
  // could spell out a hidden input (its size, say), so it is not given.
  if (run.raw.output_truncated())
    r.notes.push_back(ctx.rubric.hidden.empty()
                          ? "Your program printed " + std::to_string(run.raw.output_bytes) +
                                " bytes; only the beginning was kept."
                          : "Your program printed more than " + std::to_string(ctx.rubric.limits.output_kb) +
                                " KiB; only the beginning was kept.");
  if (memory_limit_reached(run.runner_isolation))
    r.notes.push_back("Your code reached the memory limit (" + std::to_string(ctx.rubric.limits.memory_mb) +
                      " MiB for all its processes together) and was stopped.");
}

// The checks of the run's report (and its timing fields into r), or, where the run left none,
// every check in error with the reason, in `problem`. A report of another schema is the
// instructor's trouble, never a verdict: it is thrown on, and no result is saved.
std::vector<CheckOutcome> checks_of_run(const GradingContext& ctx, const LabRun& run, StudentResult& r,
                                        std::string& problem) {
  std::vector<CheckOutcome> checks;
  if (run.has_report) {
    try {
      LabReport rep = parse_lab_report(run.report_json);
      r.timing_status = rep.timing_status;
      r.timing_note = rep.timing_note;
      r.student_ms = rep.student_ms;
      r.naive_ms = rep.naive_ms;
      return rep.checks;
    } catch (const ReportSchemaError&) {
      throw;
    } catch (const std::exception& e) {
      problem = std::string("the checker's report could not be read (") + e.what() + "); tell your instructor";
    }
  } else if (run.raw.timed_out) {
    problem = explain_no_report(ctx, run);
  } else {
    // The trusted checker always reports, whatever the runner does: without a report, the
    // trouble is the grader's. No result is saved, so the next run grades this student again.
    throw std::runtime_error(explain_no_report(ctx, run) + "\n" + clip_text(run.raw.output_with_note(), 4096));
  }
  // The checks are the checker's (the same list for everyone).
  for (const auto& ref : ctx.reference_checks) {
    CheckOutcome c = ref;
    c.details.clear();
    c.status = ref.status == "skipped" ? "skipped" : "error";
    c.cause = ref.status == "skipped" ? ref.cause : run.raw.timed_out ? "time_limit" : "checker_error";
    c.message = ref.status == "skipped" ? ref.message : "not run: " + problem;
    checks.push_back(c);
  }
  return checks;
}

// The emulator-judged checks' verdicts from an emulator run of the same file (ctx.emulator on):
// the one made after the build, else (a file built before the limit was known) one made now.
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

// Messages come from the trusted checker, but the file names in them are the grader's copies:
// the student sees their own file's name. A visible check may point back to an earlier one ("the
// same error as check X"): a hidden check is not named there, not even by its id.
void clean_check_words(const GradingContext& ctx, const fs::path& dir, std::vector<CheckOutcome>& checks) {
  for (auto& c : checks) {
    c.message = without_grader_paths(c.message, ctx, dir);
    for (auto& d : c.details) d = without_grader_paths(d, ctx, dir);
    if (!ctx.rubric.hidden.count(c.id)) {
      c.message = without_hidden_check_ids(c.message, ctx.rubric.hidden);
      for (auto& d : c.details) d = without_hidden_check_ids(d, ctx.rubric.hidden);
    }
  }
}

// A check ended by the runner's system-call filter (cause "forbidden_call": the lab's code made a
// system call a lab file may not make, and the process died of SIGSYS) rejects the whole file:
// no check of a file that reaches outside its kernels is believed.
void reject_forbidden_calls(const GradingContext& ctx, StudentResult& r) {
  for (const auto& c : r.checks) {
    if (c.cause != "forbidden_call") continue;
    r.verdict = kRejected;
    r.rule = "system_call";
    r.reason = (ctx.rubric.hidden.count(c.id) ? "In a hidden check, " : "In check " + c.id + ", ") + c.message + ".";
    return;
  }
}

// A stub handed in as it is: the gradebook says so, instead of looking like any wrong answer.
void note_if_stub(StudentResult& r) {
  r.reason =
      looks_handed_in_as_stub(r.checks)
          ? "stub: no check's output was ever written; the lab looks handed in as it was given out (TODOs not done)"
          : "";
}

}  // namespace

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

bool looks_handed_in_as_stub(const std::vector<CheckOutcome>& checks) {
  size_t failed = 0, unwritten = 0, passed = 0;
  for (const auto& c : checks) {
    passed += c.status == "pass";
    if (c.status == "fail" || c.status == "error") {
      ++failed;
      unwritten += c.cause == "unwritten_output";
    }
  }
  return !passed && failed && unwritten == failed;
}

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
  // tests/profile/run_variants.sh does the same), then the two profile runners: the student's in
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
