#include "store.h"

#include "safe_io/files.h"
#include "writers.h"

namespace grading {

fs::path student_dir(const fs::path& grades, const std::string& student) { return grades / "students" / student; }

std::map<std::string, StudentResult> load_results(const fs::path& grades) {
  std::map<std::string, StudentResult> out;
  std::error_code ec;
  for (fs::directory_iterator it(grades / "students", ec), end; !ec && it != end; it.increment(ec)) {
    auto text = read_file(it->path() / "result.json", 64 << 20);
    if (!text) continue;
    try {
      StudentResult r = result_from_json(nlohmann::json::parse(*text));
      if (r.student == it->path().filename().string()) out[r.student] = std::move(r);
    } catch (const std::exception&) {
      // Unreadable (a kill mid-write cannot cause this, but a hand edit can): grade again.
    }
  }
  return out;
}

void save_derived(const fs::path& grades, const StudentResult& r, const Rubric& rubric, const LabInfo& lab) {
  const fs::path dir = student_dir(grades, r.student);
  write_file_atomic(dir / "feedback.md", feedback_markdown(r, rubric, lab));
  write_file_atomic(dir / "results.json", gradescope_json(r, rubric, lab).dump(2) + "\n");
}

void save_student(const fs::path& grades, const StudentResult& r, const Rubric& rubric, const LabInfo& lab) {
  // The derived files first, the result last: a result on disk means the rest is there too.
  save_derived(grades, r, rubric, lab);
  write_file_atomic(student_dir(grades, r.student) / "result.json", to_json(r).dump(1) + "\n");
}

}  // namespace grading
