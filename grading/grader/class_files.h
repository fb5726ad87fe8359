// What the class-wide files need beyond the results: each student's source as graded (for the
// similarity report), stable pseudonyms (for the leaderboard), and the class report itself.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "grade_student.h"
#include "results/result.h"

namespace grading {

// grades/labN/students/<name>/source.cu: the file as it was built (decoded, normalized), kept
// beside the student's result so that the class report can compare sources even when the
// work folder was node-local (Slurm) or has been cleaned.
std::filesystem::path student_source_copy(const std::filesystem::path& grades, const std::string& student);
void keep_source_copy(const GradingContext& ctx, const std::filesystem::path& grades, const StudentResult& r);

// One pseudonym per student ("anon-3fa91c"), the same on every run of this grades folder: a
// keyed hash of the name with a key made once and kept in grades/labN/.pseudonym_key (the
// instructor's alone), so a pseudonym cannot be turned back into a name by hashing guesses.
std::map<std::string, std::string> pseudonyms(const std::filesystem::path& grades,
                                              const std::vector<StudentResult>& all);

// Runs grading/class_report/class_report.py on the grades folder (report.html beside summary.json).
// A report that cannot be made is said on stderr; it never fails the grading.
void write_class_report(const std::filesystem::path& repo, const std::filesystem::path& grades);

}  // namespace grading
