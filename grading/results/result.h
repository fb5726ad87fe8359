// What grading one student found, before any points: kept per student on disk (the grader
// resumes from it), scored with the rubric whenever outputs are written, so that editing a
// rubric's points never needs the submissions to run again.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace grading {

// Verdicts, from "nothing to grade" to "graded".
inline constexpr const char* kNoSubmission = "no_submission";  // empty folder, no lab file, two candidates
inline constexpr const char* kUnreadable = "unreadable";  // binary, oversized, undecodable
inline constexpr const char* kRejected = "rejected";  // broke a static rule
inline constexpr const char* kBuildFailed = "build_failed";
inline constexpr const char* kGraded = "graded";  // ran: every check has an outcome

struct CheckOutcome {
  std::string id, title;
  std::string status;  // pass, fail, error, not_run, skipped (the harness's words)
  std::string message;  // the harness's message, or why the check could not run: for people only
  std::vector<std::string> details;  // mismatches and notes, as lines
  // Why it did not pass, as the checker's report names it ("wrong_values", "crash", ...; "none"
  // when it passed; docs/architecture.md): what the grader acts on, never the message.
  std::string cause = "none";
  std::string judged_by = "checker";  // "emulator": only the CPU backend's emulator can judge it
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CheckOutcome, id, title, status, message, details, cause, judged_by)

// The causes after which the checker replaced the runner (it crashed, hung, broke off the
// conversation or lost the GPU context), as against an error the lab's code met and survived.
bool ended_its_runner(const CheckOutcome& c);

struct StudentResult {
  std::string student, origin, file;
  std::string key;  // content hash + backend: what resumption compares
  std::string verdict, reason;
  std::string rule;  // for kRejected: which rule
  std::string backend;  // "cuda" or "cpu"
  std::string gpu;  // CUDA_VISIBLE_DEVICES it ran on ("" on the CPU)
  uint64_t seed = 0;
  std::vector<std::string> notes;  // file conversions, truncated output, re-runs
  std::vector<CheckOutcome> checks;
  std::string timing_status, timing_note;
  std::optional<double> student_ms, reference_ms;
  // The harness's naive kernel, timed in the student's run and in the reference's run: the
  // speed scale's zero (rubric.h, anchor "naive").
  // On a GPU the grader times both in its anchor runs (reference_anchors.h) around the student's.
  std::optional<double> naive_ms, reference_naive_ms;
  // How far apart the reference's two anchors around this student's run were (b / a - 1, the
  // larger over the smaller): the timing noise this student's ratio carries. Absent without anchors.
  std::optional<double> reference_noise;
  // --profile (issue 31): "why is it slow", estimated on the CPU backend. profile_status: "" (not
  // asked, or the checks did not all pass), "made" (profile_text is the checker's section) or
  // "not_made" (profile_text says why). Shown in the feedback, never scored.
  std::string profile_status, profile_text, profile_first, profile_size;
  std::string build_log, run_log;
  double seconds = 0;
  std::string graded_at;
};

nlohmann::json to_json(const StudentResult& r);
// A time that may be missing, as JSON: the number or null.
nlohmann::json optional_json(const std::optional<double>& v);
StudentResult result_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception

}  // namespace grading
