// Grading one student, in two stages so that builds (one per core) and runs (one at a time
// per GPU) can be scheduled apart: prepare_and_build, then run_and_finish.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "discover.h"
#include "phase_clock.h"
#include "process.h"
#include "results/result.h"
#include "results/rubric.h"

namespace grading {

struct GradingContext {
  std::filesystem::path repo;  // where `make lab-runner` runs
  std::filesystem::path checker;  // build/<backend>/check/labN: trusted, built once per grading run
  std::filesystem::path work;  // per-student build and run folders
  int lab = 0;
  std::string lab_file_name;  // "lab3_multilevel_sum.cu"
  std::string backend;  // "cuda" or "cpu"
  Rubric rubric;
  // As root, every build and run of a submission happens in cudalab-jail, as the student's
  // own uid (uid_base + their index), seeing only their own folder and what is listed here.
  bool jailed = false;
  std::string jail_program;
  unsigned uid_base = 200000;
  bool allow_degraded = false;  // hosts without namespaces (some containers)
  std::vector<std::string> build_view;  // read-only for builds: makefiles, harness, built harness
  std::string nvcc;  // the CUDA compiler, by absolute path (a jail's PATH is its own)
  std::vector<std::string> build_hide;  // inside build_view: the reference's generated copies
  // run_timeout: the wall-clock limit of one student's whole run (the checker and every
  // runner it starts); check_timeout: the checker's limit per check (--check-timeout), after
  // which a hung runner is stopped and the next check gets a fresh one.
  double build_timeout = 0, run_timeout = 0, check_timeout = 0;
  std::string path_env, ld_library_path;
  // From the reference run (the solution's runner, or the lab's own stub where no solution
  // is shipped, as on Gradescope): every check (id, title, and whether this backend skips
  // it) and, per GPU, the reference solution's time.
  std::vector<CheckOutcome> reference_checks;
  std::map<std::string, double> reference_ms;  // by GPU ("" on the CPU)
  std::map<std::string, double> reference_naive_ms;  // the naive kernel timed in the reference's run, by GPU
  // Where the time goes, step by step (none: not recorded). The clock is shared by every
  // thread of the run; it locks itself.
  PhaseClock* clock = nullptr;
  // Set once the reference (and the stub) went through a student's build: the course's side of
  // the build is then known to be ready in the jail, and each student's build skips that check
  // (a jailed make of its own, most of a second of CPU per student).
  bool harness_proven = false;
  // More environment for every build ("CPATH=...", "LIBRARY_PATH=..."), where the grader was
  // started with it: a host whose libraries travel beside the checkout (.carry/deps). Their
  // folders are part of a jailed build's view.
  std::vector<std::string> build_env;
  // --timing-trace: each timing run's "timing trace:" lines go to <work>/timing-trace.log.
  bool timing_trace = false;
  // The checks only the CPU backend's emulator can judge (a report's "judged_by": "emulator",
  // such as barriers): when on, each file is also built for the CPU backend, in the same jailed
  // build step, and those checks' verdicts come from an emulator run (emulator_verdicts.h).
  struct EmulatorSide {
    bool enabled = false;
    std::filesystem::path checker;  // build/cpu/check/labN
    double check_timeout = 0;  // its --check-timeout, from the reference's emulator run
    // The cores its runs may use ("4-15"; "": any): all the grader's own but kEmulatorCoresFree,
    // which the check and timing runs keep (emulator_cores()).
    std::string cores;
    unsigned threads = 1;  // emulator runs at once: as many as those cores
  } emulator;
  // --profile (issue 31): "why is it slow", estimated on the CPU backend for each student whose
  // checks all passed (add_profile), shown in the feedback, never scored.
  struct ProfileSide {
    bool asked = false;
    std::string problem;  // why no student's profile can be made this run ("" when it can)
    std::filesystem::path checker;  // build/cpu/check/labN
    std::filesystem::path reference;  // the reference's profile runner, built by the grader at setup
  } profile;
};

// What an emulator run of a file found (run_emulator): its checks, or why there are none.
struct EmulatorRun {
  std::optional<std::vector<CheckOutcome>> checks;
  std::string problem;
  double seconds = 0;
};

struct Built {
  StudentResult result;  // filled as far as known
  unsigned index = 0;  // the student's identity in the jail: uid_base + index
  std::filesystem::path runner;  // their kernel runner: bin/lab
  bool runnable = false;
  // With ctx.emulator on: the same file built for the CPU backend (bin/lab-cpu), or, when that
  // build failed, why (the emulator-judged checks then keep the checker's own verdict).
  std::filesystem::path emulator_runner;
  std::string emulator_problem;
  std::string emulator_build_output;  // that build's output, for the instructor when it is the reference's
  // Its emulator run, made right after the build once ctx.emulator.check_timeout is known (a
  // student's, not the reference's): it needs no GPU, so it never holds one of a GPU's run slots.
  std::optional<EmulatorRun> emulator_run;
  // Built with EmulatorStep::Later: the CPU build and the emulator run are still to come
  // (emulate()), and run_and_finish leaves the emulator-judged checks for merge_emulator_verdicts.
  bool emulator_later = false;
};

// Cores the emulator's runs leave to the check and timing runs' own processes: with emulator
// runs on any core, the timing's clock bound (timing_bound.h) refused one run in six on the H100.
inline constexpr unsigned kEmulatorCoresFree = 4;
// The cores the grader may use (its affinity: a Slurm allocation's, say), less the first
// kEmulatorCoresFree, as a --cpu-list; "" where no more than that many are there.
std::string emulator_cores(unsigned& count);

// When a student's CPU build and emulator run happen: right after the GPU build, on the same
// thread (Inline), or later on a thread of their own (Later: emulate()), so that the builds of
// the whole class finish first and the emulator's CPU work overlaps the GPU's timing instead.
enum class EmulatorStep { Inline, Later };

// The build of a student's profile runner (`make lab-runner BACKEND=cpu PROFILE=1`): the CPU
// backend with the emulator that counts warp requests (mk/profile.mk).
inline const std::string kProfileBuild = "cpu-profile";

// The key resumption compares: the submitted bytes and the backend.
std::string submission_key(const Submission& s, const std::string& backend);

Built prepare_and_build(const GradingContext& ctx, const Submission& s, EmulatorStep emulator = EmulatorStep::Inline);
// The emulator's part of a student built with EmulatorStep::Later: the CPU build, then the
// emulator run (into built.emulator_run, which says why when there is none). No GPU.
void emulate(const GradingContext& ctx, Built& built);
// The emulator-judged checks of `r` take built.emulator_run's verdicts (or keep the checker's,
// with a note, when it has none), in the words the student reads.
void merge_emulator_verdicts(const GradingContext& ctx, const Built& built, StudentResult& r);
// Runs the checker on a built submission: every check, and the timing too when `with_timing`
// (else --no-timing: the grader times correct submissions afterwards, one at a time).
// Built with EmulatorStep::Later, the emulator-judged checks keep the checker's verdicts and
// `emulator_pending` (when given) says whether they still await merge_emulator_verdicts (a run
// that ended in trouble takes none, as with Inline).
StudentResult run_and_finish(const GradingContext& ctx, const Built& built, const std::string& gpu, bool with_timing,
                             bool* emulator_pending = nullptr);
// The timing alone (the checker's --timing-only), for a submission whose checks all passed:
// fills r's timing fields. No check may share the GPU meanwhile; timing runs may overlap when
// they share `gate` (the checker's --gpu-gate: each measures only while holding its lock).
// `run` says which: a student's kernel alone (Student: --no-baselines, its scale's ends come from the
// anchors), the reference with the harness's naive kernel (Anchor: results/reference_anchors.h),
// or the student's with the naive kernel in its own run (Alone: where no anchors are timed).
// `folder` names the run's folder under the student's: anchors on several GPUs run at once.
enum class TimingRun { Student, Anchor, Alone };
void time_student(const GradingContext& ctx, const Built& built, StudentResult& r, const std::string& gpu,
                  const std::filesystem::path& gate = {}, TimingRun run = TimingRun::Alone,
                  const std::string& folder = "timing");

// The build whose run judges the emulator's checks: the CPU backend under its race detector
// (`make BACKEND=cpu CHECK=race`), which sees every barrier as the plain build does, and every
// access. Passed where a make takes a backend.
inline const std::string kEmulatorBuild = "cpu-race";
// The make variables that choose a build: BACKEND=..., and CHECK=race for kEmulatorBuild.
std::vector<std::string> build_settings(const std::string& build);

// Runs make in the checkout as the grader (trusted, outside any jail) for the backend and lab
// graded (`make BACKEND=... LAB=... targets...`): "" when it succeeded, else what went wrong
// and its output. `output`, when given, receives what it printed.
// `backend`, when given, replaces ctx.backend (kEmulatorBuild: the emulator's checker and harness).
std::string run_trusted_make(const GradingContext& ctx, const std::vector<std::string>& targets,
                             std::string* output = nullptr, const std::string& backend = "");

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

// The emulator run of a built submission (ctx.emulator on, its CPU runner built): the CPU
// backend's checker with `args` (no timing), in the student's jail. The report, or why none.
EmulatorRun run_emulator(const GradingContext& ctx, const Built& built, std::vector<std::string> args);

// Whether a graded run looks like the stub handed in as it was: nothing passed, and every
// check that failed did so with its output never written (cause "unwritten_output").
bool looks_handed_in_as_stub(const std::vector<CheckOutcome>& checks);

// One run of the checker against a built submission's runner, exactly as a student's runs go
// (their jail, a fresh run/ folder, removed after), with the arguments given and `timeout`
// for the whole run: the reference's runs go so.
LabRun run_built(const GradingContext& ctx, const Built& built, const std::vector<std::string>& args, double timeout,
                 const std::string& gpu);

// `text` with every hidden check's id (and "check <id>") replaced by "a hidden check": a
// visible check's message may point back to an earlier check, which may be hidden.
std::string without_hidden_check_ids(std::string text, const std::set<std::string>& hidden);

// The checker's command line for one run (exposed for tests): checker --runner R
// [--runner-wrap WORD]... args...
std::vector<std::string> checker_argv(const GradingContext& ctx, const std::filesystem::path& runner,
                                      const std::vector<std::string>& args, const std::optional<JailSpec>& runner_jail);

// --profile: for a graded student whose checks all passed, their file built as a profile runner
// (bin/lab-profile, in their build jail) and profiled beside the reference's by the CPU backend's
// checker (their runner in their jail), into r.profile_*; when it cannot be made (a build error,
// a time limit), r.profile_status is "not_made" and the text says why. Never touches points.
// Others are left as they are.
void add_profile(const GradingContext& ctx, unsigned index, StudentResult& r);

// After grading as root: nothing of the jails is left (their cgroups), and the work folder
// belongs to whoever owns the checkout again, so that their `make clean` can remove it.
void finish_work_folder(const GradingContext& ctx);

// The isolation of student `index`: their uid, the limits of the rubric, no folder yet.
JailSpec student_jail(const GradingContext& ctx, unsigned index);

}  // namespace grading
