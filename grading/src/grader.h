// One grading run: a folder of submissions in, grades/labN/ out.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace grading {

struct Config {
  int lab = 0;
  std::filesystem::path repo = ".";
  std::filesystem::path submissions;
  std::filesystem::path grades = "grades";  // results go to grades/labN/
  std::filesystem::path work;               // default: repo/build/grading/labN
  std::filesystem::path rubric;             // default: repo/grading/rubrics/labN.toml
  std::string backend = "auto";             // auto, cuda, cpu
  bool force = false;
  unsigned jobs = 0;                        // parallel builds; default: one per core
  std::optional<double> build_timeout, run_timeout, check_timeout;
  std::string student_name = "submission";  // for a Gradescope-style single submission
  unsigned uid_base = 200000;               // as root, student i builds and runs as uid_base + i
  bool allow_degraded = false;              // as root on a host without namespaces: run anyway (said so)
  bool isolate = true;                      // cudalab-jail when root
};

// Returns the process exit status: 0 every student graded (whatever the scores); 1 some
// students could not be graded for the grader's own trouble (no result saved for them: run
// again); 2 bad setup (no submissions folder, a rubric or reference solution in error).
int run_grader(const Config& cfg);

}  // namespace grading
