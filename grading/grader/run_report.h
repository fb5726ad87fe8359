// What a checker run tells the student: its report's checks (or every check in error, and why),
// its output and limits as notes, the checks' words cleaned of the grader's paths and hidden
// checks' ids, and what the checks say of the whole file (a forbidden call, a stub handed in).
#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "checker_run.h"
#include "grading_context.h"

namespace grading {

// The checks of the run's report (and its timing fields into r), or, where the run left none,
// every check in error with the reason, in `problem`. A report of another schema is the
// instructor's trouble, never a verdict: it is thrown on, and no result is saved.
std::vector<CheckOutcome> checks_of_run(const GradingContext& ctx, const LabRun& run, StudentResult& r,
                                        std::string& problem);

// What the run's output and limits tell the student: the output is the checker's report plus
// whatever their code printed (the runner shares its stdout and stderr), kept only when no hidden
// check ran (either could describe a hidden check's inputs); never acted on.
void note_run_output(const GradingContext& ctx, const LabRun& run, const fs::path& dir, StudentResult& r);

// Messages come from the trusted checker, but the file names in them are the grader's copies:
// the student sees their own file's name. A visible check may point back to an earlier one ("the
// same error as check X"): a hidden check is not named there, not even by its id.
void clean_check_words(const GradingContext& ctx, const fs::path& dir, std::vector<CheckOutcome>& checks);

// A check ended by the runner's system-call filter (cause "forbidden_call": the lab's code made a
// system call a lab file may not make, and the process died of SIGSYS) rejects the whole file:
// no check of a file that reaches outside its kernels is believed.
void reject_forbidden_calls(const GradingContext& ctx, StudentResult& r);

// A stub handed in as it is: the gradebook says so, instead of looking like any wrong answer.
void note_if_stub(StudentResult& r);

// Whether a graded run looks like the stub handed in as it was: nothing passed, and every
// check that failed did so with its output never written (cause "unwritten_output").
bool looks_handed_in_as_stub(const std::vector<CheckOutcome>& checks);

// `text` with every hidden check's id (and "check <id>") replaced by "a hidden check": a
// visible check's message may point back to an earlier check, which may be hidden.
std::string without_hidden_check_ids(std::string text, const std::set<std::string>& hidden);

}  // namespace grading
