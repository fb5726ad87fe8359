// Finds the submissions in a folder: one sub-folder per student, flat files
// "<student>_lab3*.cu", or a Gradescope-style "submission/" folder. Every student found gets
// either the one file to grade or a reason there is none; nothing here throws on odd input.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grading {

namespace fs = std::filesystem;

// The grader's own folders beside the students' in the work folder: the reference solution's
// and the shipped stub's builds (grading/grader/setup.h). No student gets their names.
inline constexpr const char* kReferenceFolder = "_reference";
inline constexpr const char* kStubFolder = "_stub";

struct Submission {
  std::string student;  // safe as a file name, unique in the run
  unsigned index = 0;  // 1, 2, ... in name order: the student's identity in the jail
  fs::path origin;  // the folder or file it came from
  std::optional<fs::path> file;  // the lab file to grade
  std::string problem;  // why there is no file (student-facing), when there is none
  std::vector<std::string> notes;  // how the file was chosen, when it needs saying
};

struct DiscoverOptions {
  int lab = 0;
  std::string lab_file_name;  // "lab3_multilevel_sum.cu"
  std::string single_student = "submission";  // the name for a Gradescope-style folder
};

struct Discovery {
  std::vector<Submission> submissions;  // sorted by student
  std::vector<std::string> ignored;  // top-level entries that are no submission
};

Discovery discover(const fs::path& root, const DiscoverOptions& opt);

// Whether a file name names the lab ("lab3", "Lab_3", "LAB-03"), and not lab 30.
bool names_lab(const std::string& file_name, int lab, size_t* token_at = nullptr, size_t* token_len = nullptr);

}  // namespace grading
