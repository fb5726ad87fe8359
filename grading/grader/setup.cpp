#include "setup.h"

#include <sys/stat.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "build_submission.h"
#include "checker_run.h"
#include "emulator_run.h"
#include "run_report.h"
#include "results/emulator_verdicts.h"
#include "results/lab_report.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"
#include "safe_io/text.h"

namespace grading {
namespace {

// The last `lines` lines of a long text (a failed build's end says why).
std::string tail_lines(const std::string& text, size_t lines = 30) {
  size_t at = text.size();
  while (at > 0 && text[at - 1] == '\n') --at;
  for (size_t n = 0; at > 0; --at)
    if (text[at - 1] == '\n' && ++n == lines) break;
  return text.substr(at);
}

std::string indented(const std::string& text) {
  std::string out = "    ";
  for (char c : tail_lines(text)) {
    out += c;
    if (c == '\n') out += "    ";
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// The first folder on the way to `p` that other users may not enter (a home folder of mode
// 0700, say), or "".
std::string closed_folder_above(const fs::path& p) {
  fs::path at;
  for (const auto& part : fs::absolute(p)) {
    at /= part;
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)) return at.string();
  }
  return "";
}

// What to do when a student's build or run could not happen at all, or failed where the
// student's uid may have met a folder it cannot enter.
std::string jail_advice(const GradingContext& ctx) {
  if (!ctx.jailed) return "";
  std::string advice = "\nEach student's build and run goes through " + ctx.jail_program +
                       " as a uid of their own. It needs root and a kernel that allows namespaces and mounts; ";
  advice += ctx.allow_degraded
                ? "with --allow-degraded it runs without them where they are refused, so what it said above is what "
                  "stopped it (grading/README.md, \"Trust model\")."
                : "in a container or chroot that refuses them, grade with --allow-degraded (each student still runs as "
                  "their own uid, with limits: grading/README.md, \"Trust model\").";
  for (const fs::path& p : {ctx.repo, ctx.work}) {
    if (!ctx.allow_degraded) break;  // with namespaces, each jail shows the folders it needs
    const std::string closed = closed_folder_above(p);
    if (closed.empty()) continue;
    advice += "\n" + closed +
              " is closed to other users: where the jail cannot show a student's build a private view "
              "of the course (--allow-degraded without namespaces), their uid must be able to enter " +
              p.string() + ". Grade from a checkout and a --work folder others may enter (or chmod o+x " + closed +
              ").";
    break;
  }
  return advice;
}

// `source` built into a kernel runner exactly as a student's file is (reading, static rules,
// the harness check, the preprocessor and the build, each in the jail of uid_base + 0), in the
// work folder's `folder`.
Built build_as_student(const GradingContext& ctx, const std::string& folder, const fs::path& source,
                       const std::string& who) {
  Submission s;
  s.student = folder;
  s.index = 0;  // students are 1, 2, ...: the setup's own uid is nobody's
  s.origin = source;
  s.file = source;
  Built b;
  try {
    b = prepare_and_build(ctx, s);
  } catch (const std::exception& e) {
    throw SetupError(who + " could not be built the way a student's file is:\n" + indented(e.what()) +
                     jail_advice(ctx));
  }
  if (b.runnable) return b;
  const StudentResult& r = b.result;
  std::string what = r.verdict == kRejected ? "is refused by the grader's static rules (" + r.rule + ")"
                                            : "does not build the way a student's file is built (" + r.verdict + ")";
  throw SetupError(who + " " + what + ": " + r.reason + (r.build_log.empty() ? "" : "\n" + indented(r.build_log)) +
                   (r.verdict == kBuildFailed ? jail_advice(ctx) : ""));
}

// A run that left no report, in the instructor's words.
std::string no_report(const std::string& who, const LabRun& run) {
  return who + ", run the way a student's file is: the checker " + run.raw.describe() + " without a report (" +
         run.problem + "):\n" + indented(run.raw.output_with_note()) +
         (run.runner_isolation.empty() ? "" : "\n    the runner's jail: " + run.runner_isolation);
}

std::string check_line(const CheckOutcome& c) {
  std::string line = "check " + c.id + " (" + c.status + "): " + c.message;
  for (size_t i = 0; i < c.details.size() && i < 3; ++i) line += "\n      " + c.details[i];
  return line;
}

// The folders of a PATH-like value ("a:b:c"), empty ones left out.
std::vector<std::string> path_list(const std::string& value) {
  std::vector<std::string> out;
  std::istringstream in(value);
  for (std::string part; std::getline(in, part, ':');)
    if (!part.empty()) out.push_back(part);
  return out;
}

// Words of a command's output, one per space or line.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// What a student's build sees of the course, read-only: what mk/grading.mk names (the makefiles,
// the harness's sources, the dependency stamps, and the build folders the lab-runner rule's
// prerequisites live in) and the CUDA toolkit. Not the reference solutions, not the grader's
// folders (build/grading: other students, the reference's build), not the grades or the
// submissions (never under a path listed here); inside the view, every folder of generated
// copies of the solutions is covered.
// With the emulator on, its build's (the CPU backend under the race detector) is in view too; and
// the folders of the build's own CPATH and LIBRARY_PATH (libraries carried beside the checkout).
void set_build_view(GradingContext& ctx) {
  std::vector<std::string> backends = {ctx.backend};
  if (ctx.emulator.enabled) backends.push_back(kEmulatorBuild);
  if (ctx.profile.asked && ctx.profile.problem.empty()) backends.push_back(kProfileBuild);
  std::vector<std::string> shown;
  for (const std::string& backend : backends) {
    std::string out;
    if (std::string err = run_trusted_make(ctx, {"grading-build-view"}, &out, backend); !err.empty())
      throw SetupError("make grading-build-view does not say what a student's build reads:\n" + indented(err));
    for (const std::string& w : words(out)) shown.push_back(w);
  }
  // Only the folders inside the checkout: a jail shows the system's folders already (a CUDA
  // toolkit's stubs, say, often through a symbolic link, which a jail refuses to bind).
  const std::string inside = ctx.repo.string() + "/";
  for (const std::string& setting : ctx.build_env)
    for (const std::string& folder : path_list(setting.substr(setting.find('=') + 1)))
      if (folder.rfind(inside, 0) == 0) shown.push_back(folder);
  for (const std::string& w : shown) {
    const fs::path p = fs::path(w).is_absolute() ? fs::path(w) : ctx.repo / w;
    std::error_code ec;
    const bool is_new = std::find(ctx.build_view.begin(), ctx.build_view.end(), p.string()) == ctx.build_view.end();
    if (w.find("..") == std::string::npos && fs::exists(p, ec) && is_new) ctx.build_view.push_back(p.string());
  }
  if (!ctx.nvcc.empty()) ctx.build_view.push_back(fs::path(ctx.nvcc).parent_path().parent_path().string());
  for (const std::string& shown : ctx.build_view) {
    std::error_code ec;
    if (!fs::is_directory(shown, ec) || shown.rfind((ctx.repo / "build").string() + "/", 0) != 0) continue;
    for (fs::recursive_directory_iterator it(shown, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it.depth() > 4) it.disable_recursion_pending();
      if (it->is_directory(ec) && !it->is_symlink(ec) && it->path().filename() == "solutions") {
        ctx.build_hide.push_back(it->path().string());
        it.disable_recursion_pending();
      }
    }
  }
}

RunResult run_plain(const std::vector<std::string>& argv, const fs::path& cwd) {
  RunSpec spec;
  spec.argv = argv;
  spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1"};
  spec.cwd = cwd;
  spec.limits.wall_seconds = 60;
  spec.limits.file_bytes = 0;
  spec.limits.output_keep_bytes = 8u << 20;
  return run_sandboxed(spec);
}

// --profile: what each student's profile needs, built as the grader: the CPU backend's checker,
// the prerequisites of a profile build (`make lab-runner BACKEND=cpu PROFILE=1`) and the reference's
// own profile runner. Advice only: a failure here is said once and in each correct student's
// section, and grading goes on (no student's points depend on it).
void build_profile_side(GradingContext& ctx) {
  const std::string lab = std::to_string(ctx.lab);
  const std::string reference = "build/cpu/profile/solutions/lab" + lab + "-runner";
  if (std::string err =
          run_trusted_make(ctx, {"lab-checker", "grading-runner-prereqs", reference}, nullptr, kProfileBuild);
      !err.empty()) {
    ctx.profile.problem = "the grader could not build the reference's profile runner";
    std::cerr << "grader: --profile: the profile build does not build (make lab-checker grading-runner-prereqs "
              << reference << " LAB=" << lab
              << " BACKEND=cpu PROFILE=1); each correct student's feedback says it could not be made:\n"
              << indented(err) << "\n";
    return;
  }
  ctx.profile.checker = ctx.repo / "build" / "cpu" / "check" / ("lab" + lab);
  ctx.profile.reference = ctx.repo / reference;
}

}  // namespace

void build_course(GradingContext& ctx) {
  const std::string lab = std::to_string(ctx.lab);
  if (std::string err = run_trusted_make(ctx, {"lab-checker", "grading-runner-prereqs"}); !err.empty())
    throw SetupError("lab " + lab +
                     "'s checker and harness do not build (make lab-checker grading-runner-prereqs LAB=" + lab +
                     " BACKEND=" + ctx.backend + "):\n" + indented(err));
  ctx.checker = ctx.repo / "build" / ctx.backend / "check" / ("lab" + lab);
  if (!fs::exists(ctx.checker)) throw SetupError("no checker at " + ctx.checker.string() + " after building it");
  if (ctx.emulator.enabled) {
    if (std::string err = run_trusted_make(ctx, {"lab-checker", "grading-runner-prereqs"}, nullptr, kEmulatorBuild);
        !err.empty())
      throw SetupError("lab " + lab +
                       "'s CPU backend under its race detector, which judges the checks a GPU cannot "
                       "(barriers, races), does not build (make lab-checker grading-runner-prereqs LAB=" +
                       lab +
                       " BACKEND=cpu CHECK=race; it needs Boost.Context, or grade with --emulator-verdicts never):\n" +
                       indented(err));
    ctx.emulator.checker = ctx.repo / "build" / "cpu" / "check" / ("lab" + lab);
    ctx.emulator.cores = emulator_cores(ctx.emulator.threads);
  }
  if (ctx.profile.asked && ctx.profile.problem.empty()) build_profile_side(ctx);
  if (ctx.jailed) set_build_view(ctx);
}

std::optional<ShippedStub> shipped_stub(const fs::path& repo, const std::string& lab_file_name) {
  const std::string rel = "labs/" + lab_file_name;
  // The grader may run as root in a checkout someone else owns: git would refuse it as
  // "dubious ownership" without safe.directory (the instructor's own checkout: trusted).
  const std::vector<std::string> git = {"git", "-c", "safe.directory=*", "-C", repo.string()};
  auto git_run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = git;
    argv.insert(argv.end(), args.begin(), args.end());
    return run_plain(argv, repo);
  };
  RunResult top = git_run({"rev-parse", "--show-toplevel"});
  std::error_code ec;
  std::string top_dir = top.output;
  while (!top_dir.empty() && (top_dir.back() == '\n' || top_dir.back() == '\r')) top_dir.pop_back();
  if (top.started && top.exit_code == 0 && fs::equivalent(top_dir, repo, ec)) {
    RunResult shown = git_run({"show", "HEAD:" + rel});
    if (shown.started && shown.exit_code == 0 && !shown.output_truncated())
      return ShippedStub{shown.output, rel + " as committed"};
  }
  if (auto text = read_file(repo / rel, 4u << 20))
    return ShippedStub{*text, rel + " (no git history here: as it is on disk)"};
  return std::nullopt;
}

namespace {

// The reference's emulator-judged checks (ctx.emulator on), from an emulator run of its file:
// the solution must pass them; its run's length sets the emulator's per-check limit.
void judge_reference_on_emulator(const GradingContext& ctx, const Built& built, const std::string& who,
                                 bool is_solution, ReferenceFacts& facts) {
  if (!ctx.emulator.enabled || !has_emulator_checks(facts.checks)) return;
  if (built.emulator_runner.empty())
    throw SetupError(who + " does not build for the CPU backend, whose emulator judges the checks a GPU cannot (" +
                     built.emulator_problem +
                     "); fix that, or grade with --emulator-verdicts never. The build said:\n" +
                     clip_text(built.emulator_build_output, 4000));
  const fs::path source = ctx.work / built.result.student / "src" / ctx.lab_file_name;
  EmulatorRun emu;
  try {
    emu = run_emulator(ctx, built, {"--seed", std::to_string(random_u64() >> 1), "--source", source.string()});
  } catch (const std::exception& e) {
    throw SetupError(who + ": the CPU backend's report could not be read (" + e.what() + ")");
  }
  if (!emu.checks) throw SetupError(who + ", run on the CPU backend's emulator: " + emu.problem);
  take_emulator_verdicts(facts.checks, *emu.checks);
  for (const auto& c : facts.checks)
    if (is_solution && c.judged_by == "emulator" && c.status != "pass" && c.status != "skipped")
      throw SetupError(who + ", run on the CPU backend's emulator the way a student's file is, fails here:\n    " +
                       check_line(c));
  facts.emulator_seconds = emu.seconds;
}

}  // namespace

ReferenceFacts prove_reference(const GradingContext& ctx, const fs::path& source, bool is_solution,
                               const std::vector<std::string>& slots) {
  const std::string who = is_solution ? "The reference solution (solutions/" + ctx.lab_file_name + ")"
                                      : "The lab's stub (labs/" + ctx.lab_file_name +
                                            ", standing in for the reference: no solution is shipped here)";
  Built built = build_as_student(ctx, kReferenceFolder, source, who);
  ReferenceFacts facts;
  // The solution once per GPU (each GPU's own reference time); the stub once, untimed.
  const std::vector<std::string> runs = is_solution ? slots : std::vector<std::string>{slots.front()};
  for (const auto& gpu : runs) {
    std::vector<std::string> args = {"--seed", std::to_string(random_u64() >> 1)};
    if (!is_solution) args.push_back("--no-timing");
    LabRun run = run_built(ctx, built, args, 1800, gpu);
    if (!run.has_report) throw SetupError(no_report(who, run));
    LabReport rep;
    try {
      rep = parse_lab_report(run.report_json);
    } catch (const std::exception& e) {
      throw SetupError(who + ": the checker's report could not be read (" + e.what() + ")");
    }
    for (const auto& c : rep.checks) {
      facts.unjudged_here |= c.judged_by == "emulator" && c.cause == "needs_emulator";
      if (is_solution && c.status != "pass" && c.status != "skipped")
        throw SetupError(who + ", built and run the way a student's file is, fails here:\n    " + check_line(c));
      if (!is_solution && c.status == "error")
        throw SetupError(who +
                         ", built and run the way a student's file is, breaks in its run (not a check's plain "
                         "failure):\n    " +
                         check_line(c) + jail_advice(ctx));
    }
    facts.checks = rep.checks;
    for (auto& c : facts.checks)
      if (c.status != "skipped") c.message.clear(), c.details.clear();
    if (!is_solution) {
      if (ctx.backend == "cuda") std::cerr << "grader: no reference solution here, so speed gets no points\n";
    } else if (rep.student_ms) {
      facts.ms[gpu] = *rep.student_ms;
      if (rep.naive_ms) facts.naive_ms[gpu] = *rep.naive_ms;
    } else if (ctx.backend == "cuda") {
      std::cerr << "grader: the reference was not timed on GPU " << gpu << " (" << rep.timing_note
                << "); speed gets no points\n";
    }
    facts.seconds = std::max(facts.seconds, run.raw.seconds);
    if (auto j = nlohmann::json::parse(run.report_json); j.contains("title"))
      facts.title = j["title"].get<std::string>();
  }
  judge_reference_on_emulator(ctx, built, who, is_solution, facts);
  if (is_solution && !facts.ms.empty()) facts.built = built;
  for (auto& c : facts.checks)
    if (c.status != "skipped") c.message.clear(), c.details.clear();
  return facts;
}

void prove_stub(const GradingContext& ctx, const ShippedStub& stub, const std::string& gpu) {
  const std::string who = "The lab's stub (" + stub.origin + ")";
  const PrivateTempDir copy("cudalab-shipped-stub");
  const fs::path source = copy.path() / ctx.lab_file_name;
  write_file_atomic(source, stub.text);
  Built built = build_as_student(ctx, kStubFolder, source, who);
  StudentResult r;
  try {
    r = run_and_finish(ctx, built, gpu, false);
  } catch (const std::exception& e) {
    throw SetupError(who + ", run the way a student's file is, left no report:\n" + indented(e.what()));
  }
  if (!r.reason.empty() && !looks_handed_in_as_stub(r.checks))
    throw SetupError(who + ", run the way a student's file is, did not finish: " + r.reason + jail_advice(ctx));
  for (const auto& c : r.checks)
    if (c.status == "error")
      throw SetupError(who +
                       ", run the way a student's file is, breaks in its run (an unfinished lab fails its checks; "
                       "this is not a plain failure):\n    " +
                       check_line(c) + jail_advice(ctx));
}

}  // namespace grading
