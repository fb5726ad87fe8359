// The grader's own setup, built and proven before anyone is graded (issue 17): what it builds
// itself, what a student's build may see, and the reference solution and the shipped stub taken
// through exactly a student's path (static rules, the jailed build, the jailed runs under the
// trusted checker). A setup that fails there stops the run with a message for the instructor
// saying what to fix: no student gets a verdict that the grader's own trouble made.
#pragma once
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "grade_student.h"

namespace grading {

// A setup error: the run stops before grading anyone (exit status 2), with this message.
struct SetupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Builds, as the grader (trusted, outside any jail), what grading ctx.lab on ctx.backend needs:
// the lab's checker and every prerequisite of a student's build (`make lab-checker
// grading-runner-prereqs`, mk/grading.mk), then sets ctx.checker and, when jailed, what each
// build sees (`make grading-build-view`). Throws SetupError.
void build_course(GradingContext& ctx);

// The lab's stub as the course ships it: labs/<file> at the checkout's last commit, never an
// instructor's filled-in working copy; where there is no git history (a Gradescope
// autograder's source, itself made from the commit), the file on disk.
struct ShippedStub {
  std::string text;
  std::string origin;  // for messages: "labs/lab3_multilevel_sum.cu as committed"
};
std::optional<ShippedStub> shipped_stub(const fs::path& repo, const std::string& lab_file_name);

// What the reference's runs found: every check of the lab, and per GPU the times speed is
// scored against.
struct ReferenceFacts {
  std::vector<CheckOutcome> checks;
  std::map<std::string, double> ms, naive_ms;  // by GPU ("" on the CPU)
  double seconds = 0;  // its longest run
  double emulator_seconds = 0;  // its emulator run (ctx.emulator on)
  // Whether this backend's own run left an emulator-judged check unjudged (races, which only the
  // race detector's build judges: on the CPU backend too, --emulator-verdicts auto needs a run).
  bool unjudged_here = false;
  std::string title;
  // The solution as built for its proof, when timed there: the grader's anchor runs time it
  // again beside the students (results/reference_anchors.h).
  std::optional<Built> built;
};

// The reference through a student's path, once per slot (GPU) when it is the solution: every
// check must pass. Where no solution is shipped (`source` is the stub: Gradescope), the stub
// stands in, once and untimed, for the list of checks; its checks may fail, but none may be in
// error. Throws SetupError naming what failed.
ReferenceFacts prove_reference(const GradingContext& ctx, const fs::path& source, bool is_solution,
                               const std::vector<std::string>& slots);

// The shipped stub through a student's path, with the students' own limits (ctx complete: the
// reference's checks and the check limit set): it must build and run, and its checks fail the
// way an unfinished lab's do (none in error, the run not cut short). Throws SetupError.
void prove_stub(const GradingContext& ctx, const ShippedStub& stub, const std::string& gpu);

}  // namespace grading
