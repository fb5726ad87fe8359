// Per-student files under the grades folder, each written atomically the moment the
// student's result is known: students/<name>/result.json (what resumption reads),
// feedback.md and results.json (Gradescope). The last two are rewritten on every run.
#pragma once
#include <filesystem>
#include <map>
#include <string>

#include "result.h"
#include "rubric.h"

namespace grading {

struct LabInfo {
  int lab = 0;
  std::string title;  // "multi-level sum", from the reference run's report
};

std::filesystem::path student_dir(const std::filesystem::path& grades, const std::string& student);

// Results already on disk, by student. A file that cannot be read is skipped (its student
// is graded again).
std::map<std::string, StudentResult> load_results(const std::filesystem::path& grades);

void save_student(const std::filesystem::path& grades, const StudentResult& r, const Rubric& rubric,
                  const LabInfo& lab);
// Only the files derived from a saved result (feedback.md, results.json): for a student not
// graded again, so that their points follow the current rubric.
void save_derived(const std::filesystem::path& grades, const StudentResult& r, const Rubric& rubric,
                  const LabInfo& lab);

}  // namespace grading
