// What grading a student needs and leaves: the run's context (GradingContext, the same for every
// student of a run) and one student's build (Built), passed to every step of grade_student.h.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "phase_clock.h"
#include "results/result.h"
#include "results/rubric.h"

namespace grading {

namespace fs = std::filesystem;

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

}  // namespace grading
