// Grading one student, in two stages so that builds (one per core) and runs (one at a time
// per GPU) can be scheduled apart: prepare_and_build, then run_and_finish.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "discover.h"
#include "result.h"
#include "rubric.h"
#include "sandbox.h"

namespace grading {

struct GradingContext {
  std::filesystem::path repo;  // where `make lab-binary` runs
  std::filesystem::path work;  // per-student build and run folders
  int lab = 0;
  std::string lab_file_name;   // "lab3_multilevel_sum.cu"
  std::string backend;         // "cuda" or "cpu"
  Rubric rubric;
  std::optional<Identity> build_as, run_as;  // set when the grader runs as root
  bool namespaces = false;
  std::vector<std::filesystem::path> hidden;  // with namespaces, hidden from builds and runs (RunSpec::hidden)
  double build_timeout = 0, run_timeout = 0, check_timeout = 0;
  std::string path_env, ld_library_path;
  // From the reference solution's run: every check (id, title, and whether this backend
  // skips it) and, per GPU, the reference's time.
  std::vector<CheckOutcome> reference_checks;
  std::map<std::string, double> reference_ms;  // by GPU ("" on the CPU)
};

struct Built {
  StudentResult result;  // filled as far as known
  std::filesystem::path binary;
  bool runnable = false;
};

// The key resumption compares: the submitted bytes and the backend.
std::string submission_key(const Submission& s, const std::string& backend);

Built prepare_and_build(const GradingContext& ctx, const Submission& s);
StudentResult run_and_finish(const GradingContext& ctx, Built built, const std::string& gpu);

// Builds a lab binary from a source file the instructor trusts (the reference solution):
// not sandboxed. Returns "" or the build's output on failure.
std::string build_trusted(const GradingContext& ctx, const std::filesystem::path& src, const std::filesystem::path& out);

// One run of a lab binary with the verdict channel; exposed for the reference run and tests.
struct LabRun {
  RunResult raw;
  bool has_report = false;
  std::string problem;  // why there is no report
  std::string report_json;
};
LabRun run_lab_binary(const GradingContext& ctx, const std::filesystem::path& binary, const std::filesystem::path& cwd,
                      const std::vector<std::string>& args, double timeout, const std::string& gpu,
                      const std::optional<Identity>& as);

}  // namespace grading
