// One grading run: a folder of submissions in, grades/labN/ out.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace grading {

struct Config {
  int lab = 0;
  std::filesystem::path repo;  // default: the checkout this program was built in, else "."
  std::filesystem::path submissions;
  std::filesystem::path grades = "grades";  // results go to grades/labN/
  std::filesystem::path work;  // default: repo/build/grading/labN
  std::filesystem::path rubric;  // default: repo/grading/rubrics/labN.toml
  std::string backend = "auto";  // auto, cuda, cpu
  bool force = false;
  unsigned jobs = 0;  // parallel builds; default: one per core
  std::optional<double> build_timeout, run_timeout, check_timeout;
  std::string student_name = "submission";  // for a Gradescope-style single submission
  unsigned uid_base = 200000;  // as root, student i builds and runs as uid_base + i
  bool allow_degraded = false;  // as root on a host without namespaces: run anyway (said so)
  bool isolate = true;  // cudalab-jail when root
  // --shard K/N: grade only the students at positions i (name order) with i % N == K and write
  // no class files (a Slurm array task; a later run without --shard writes them).
  unsigned shard_index = 0, shard_count = 1;
  // Checker runs at once per GPU (correctness only: the timing runs go one at a time with the
  // GPU to themselves); on the CPU backend, at once on the machine. 0: chosen from the cores
  // and memory (grader.cpp, parallel_run_slots).
  unsigned parallel_runs = 0;
  bool class_report = true;  // run grading/class_report/class_report.py at the end
  // --emulator-verdicts: the checks only the CPU backend's emulator can judge (barriers, races;
  // the report's "judged_by": "emulator"). "auto": each file is also built for the CPU backend
  // under its race detector and those checks' verdicts come from an emulator run of it, so a file
  // gets one verdict wherever it is graded: on a GPU always, on the CPU backend when its own run
  // leaves one unjudged (races); "always": on the CPU backend too whatever its run judged (how the
  // tests exercise the GPU's path without one); "never": they stay as the checker's run left them.
  std::string emulator_verdicts = "auto";
  // --time-apart: the GPU's two phases (everyone's checks, then the correct ones timed, one at a
  // time) on the CPU backend too, where the timing only says "emulated" (tests/grading checks
  // that no result is lost in that schedule).
  bool time_apart = false;
  // --timing-trace: every timing run's steps (the checker's --timing-trace), in
  // <work>/timing-trace.log: where the timing phase's seconds go. Never read for a grade.
  bool timing_trace = false;
  // --profile (issue 31): for each student whose checks all passed, "why is it slow", estimated on
  // the CPU backend (the checker's --profile-runner beside the reference's), in feedback.md and
  // results.json's output: advice, never points. A profile that cannot be made says so, at no cost.
  bool profile = false;
};

// Returns the process exit status: 0 every student graded (whatever the scores); 1 some
// students could not be graded for the grader's own trouble (no result saved for them: run
// again); 2 bad setup (no submissions folder, a rubric in error, or the reference solution or
// the shipped stub failing a student's path: setup.h), with no student's result written.
int run_grader(const Config& cfg);

}  // namespace grading
