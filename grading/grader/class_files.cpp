#include "class_files.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <iostream>

#include "results/store.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"

extern char** environ;

namespace grading {

fs::path student_source_copy(const fs::path& grades, const std::string& student) {
  return student_dir(grades, student) / "source.cu";
}

void keep_source_copy(const GradingContext& ctx, const fs::path& grades, const StudentResult& r) {
  // Only the grader's own copy (written by prepare_and_build, never the submitted path: that
  // could be a link to anything); absent for files that were never read as source.
  const fs::path built_from = ctx.work / r.student / "src" / ctx.lab_file_name;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(built_from, ec))) return;
  if (auto text = read_file(built_from, 4u << 20)) write_file_atomic(student_source_copy(grades, r.student), *text);
}

std::map<std::string, std::string> pseudonyms(const fs::path& grades, const std::vector<StudentResult>& all) {
  const fs::path key_file = grades / ".pseudonym_key";
  std::string key = read_file(key_file, 256).value_or("");
  if (key.size() < 32) {
    key = random_hex(32);
    write_file_atomic(key_file, key);
  }
  std::map<std::string, std::string> out;
  for (const auto& r : all) out[r.student] = "anon-" + sha256_hex(key + "\n" + r.student).substr(0, 6);
  return out;
}

void write_class_report(const fs::path& repo, const fs::path& grades) {
  const fs::path script = repo / "grading" / "class_report" / "class_report.py";
  if (!fs::exists(script)) {
    // Said, never silent: a moved script once left every class without its report unnoticed.
    std::cerr << "grader: no class report: " << script.string() << " is not in this checkout\n";
    return;
  }
  const std::string script_s = script.string(), grades_s = grades.string();
  char* argv[] = {const_cast<char*>("python3"), const_cast<char*>(script_s.c_str()),
                  const_cast<char*>(grades_s.c_str()), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, argv, environ) != 0) {
    std::cerr << "grader: no class report: python3 is not here (make deps installs what it needs)\n";
    return;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    std::cerr << "grader: the class report could not be made (above); the grades are complete without it. Again by "
                 "hand: python3 grading/class_report/class_report.py "
              << grades_s << "\n";
}

}  // namespace grading
