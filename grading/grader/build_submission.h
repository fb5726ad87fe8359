// A student's file laid out and built in their jail: read and held to the source rules, the
// preprocessor's view judged, `make lab-runner` run, its object held to the object rules. The
// steps prepare_and_build (grade_student.cpp) takes in order; each returns the Built that stops
// the student there (a verdict, every check not run), or nothing to go on. Also the trusted makes
// the grader runs itself, and the names of the builds a make takes.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "discover.h"
#include "grading_context.h"

namespace grading {

// The build of a student's profile runner (`make lab-runner BACKEND=cpu PROFILE=1`): the CPU
// backend with the emulator that counts warp requests (mk/profile.mk).
inline const std::string kProfileBuild = "cpu-profile";

// The build whose run judges the emulator's checks: the CPU backend under its race detector
// (`make BACKEND=cpu CHECK=race`), which sees every barrier as the plain build does, and every
// access. Passed where a make takes a backend.
inline const std::string kEmulatorBuild = "cpu-race";
// The make variables that choose a build: BACKEND=..., and CHECK=race for kEmulatorBuild.
std::vector<std::string> build_settings(const std::string& build);

// The key resumption compares: the submitted bytes and the backend.
std::string submission_key(const Submission& s, const std::string& backend);

// Runs make in the checkout as the grader (trusted, outside any jail) for the backend and lab
// graded (`make BACKEND=... LAB=... targets...`): "" when it succeeded, else what went wrong
// and its output. `output`, when given, receives what it printed.
// `backend`, when given, replaces ctx.backend (kEmulatorBuild: the emulator's checker and harness).
std::string run_trusted_make(const GradingContext& ctx, const std::vector<std::string>& targets,
                             std::string* output = nullptr, const std::string& backend = "");

// The course's side first, in the student's jail: every prerequisite of a build for `backend` is
// built and in view (mk/grading.mk). A build that had to make one could only fail, and blame the
// file. Nothing of the student's is involved yet, so the answer is the grader's to act on.
void require_harness_ready(const GradingContext& ctx, unsigned index, const fs::path& dir, const std::string& backend);

// `make lab-runner` of the student's file for `backend`, into `out`.
std::vector<std::string> lab_runner_make(const GradingContext& ctx, const fs::path& src, const fs::path& out,
                                         const std::string& backend);

// The student's result as far as known before their build: who, which file, their seed.
StudentResult start_result(const GradingContext& ctx, const Submission& s);

// A student stopped before their checks: `verdict` and `reason` (and the rule broken), every
// check of the lab not run.
Built stop(const GradingContext& ctx, StudentResult r, const char* verdict, const std::string& reason,
           const std::string& rule = "");

// The file read, decoded and held to the source rules: its text, or the result that stops here.
std::optional<Built> read_and_judge_source(const GradingContext& ctx, const Submission& s, StudentResult& r,
                                           std::string& text);

// A fresh folder per student: nothing of an earlier attempt or another student is reused. The
// source and the folder are the grader's; only bin/ is the student's to write. Returns the source.
fs::path lay_out_folder(const GradingContext& ctx, const Submission& s, const fs::path& dir, const std::string& text);

// What the compiler really opens and reads: the preprocessor's own dependency list and its
// expanded text, judged before anything is compiled (static_rules.h). A file that does not
// preprocess does not compile either: the build says why.
std::optional<Built> judge_preprocessed(const GradingContext& ctx, unsigned index, const fs::path& dir,
                                        const fs::path& src_file, StudentResult& r);

// The kernel runner itself (`make lab-runner`), then its object held to the rules the source
// rules cannot see (macros, mangled names).
std::optional<Built> build_runner(const GradingContext& ctx, unsigned index, const fs::path& dir,
                                  const fs::path& src_file, const fs::path& runner, StudentResult& r);

}  // namespace grading
