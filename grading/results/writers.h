// What the grader writes for people: feedback for a student, Gradescope's results.json,
// the gradebook and the run's summary.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result.h"
#include "rubric.h"
#include "store.h"

namespace grading {

// The heading of the --profile section, in feedback.md and results.json's output.
inline constexpr const char* kProfileHeading = "Why is it slow (estimated on the CPU backend, no points)";

std::string feedback_markdown(const StudentResult& r, const Rubric& rubric, const LabInfo& lab);
nlohmann::json gradescope_json(const StudentResult& r, const Rubric& rubric, const LabInfo& lab);
// One row per student; columns: student, total, maximum, verdict, backend, then one per check
// (in `check_ids` order) and speed.
std::string gradebook_csv(const std::vector<StudentResult>& results, const Rubric& rubric,
                          const std::vector<std::string>& check_ids);

struct RunFacts {
  std::string backend;
  std::vector<std::string> gpus;
  std::map<std::string, double> reference_ms;
  double seconds = 0;
  nlohmann::json time_by_step;  // PhaseClock::to_json(): where this run's time went
  size_t graded_now = 0, resumed = 0;
  std::vector<std::string> ignored;
  std::vector<CheckOutcome> checks;  // the lab's checks, in order (the reference run's)
  std::string stub;  // the lab's handed-out file, for the similarity report
  std::map<std::string, std::string> pseudonyms;  // by student: their leaderboard name
  std::map<std::string, std::string> sources;  // by student: their source as graded
};
nlohmann::json summary_json(const std::vector<StudentResult>& results, const Rubric& rubric, const LabInfo& lab,
                            const RunFacts& facts);
// The closing lines on the terminal.
std::string closing_summary(const nlohmann::json& summary);

// Why a student lost points, in a few words, for counting the most common reasons.
std::vector<std::string> failure_reasons(const StudentResult& r);

}  // namespace grading
