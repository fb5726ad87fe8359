// A grading started on a fresh clone with no build folder (issue 17), as a newcomer or
// tools/gpu/gpu_grading.sh starts one: the grader builds what it needs itself, takes the reference
// and the shipped stub through a student's exact path first, and grades a copy of the reference
// as correct. Where the students' jail cannot work, it refuses before anyone is graded: exit
// status 2, the reason and what to do, and no student's result. The clone lies in a folder other
// users cannot enter (mode 0700, as a home folder is), and its instructor has filled in lab 1
// there without committing it: the stub that goes the students' way is the committed one.
#include <doctest/doctest.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "safe_io/files.h"

using namespace grading;
using nlohmann::json;

namespace {

const fs::path kRepo = CUDALAB_REPO;

std::string grader() {
  const char* g = std::getenv("CUDALAB_GRADER");
  return g ? g : (kRepo / "build/grading/cudalab-grade").string();
}

int shell(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

// The grader with `args`, its output in `log`; `no_namespaces`: as in a container that refuses
// them (unshare fails, as under Docker's default seccomp profile).
int run_grader(const std::vector<std::string>& args, const fs::path& log, bool no_namespaces) {
  return grading_test::run_logged(args, log, [no_namespaces] {
    ::dup2(2, 1);
    if (!no_namespaces) return;
    sock_filter filter[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
                            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
                            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog prog{sizeof filter / sizeof filter[0], filter};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
      _exit(121);
  });
}

// gradebook.csv's rows by student: total, maximum, verdict.
std::map<std::string, std::vector<std::string>> rows(const fs::path& grades) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(read_file(grades / "lab1/gradebook.csv").value_or(""));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; cells.size() < 4 && std::getline(l, cell, ',');) cells.push_back(cell);
    if (!cells.empty()) out[cells[0]] = std::vector<std::string>(cells.begin() + 1, cells.end());
  }
  return out;
}

size_t results_written(const fs::path& grades) {
  size_t n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(grades, ec), end; !ec && it != end; it.increment(ec))
    n += it->path().filename() == "result.json" || it->path().filename() == "results.json";
  return n;
}

}  // namespace

TEST_CASE("fresh clone: the grader builds what it needs, proves its setup, and grades the reference as correct") {
  if (shell("git -C " + kRepo.string() + " rev-parse -q --verify HEAD >/dev/null 2>&1") != 0) {
    MESSAGE("skipped: " << kRepo << " is not a git checkout, so there is nothing to clone");
    return;
  }
  char tmpl[] = "/tmp/cudalab-fresh-XXXXXX";  // mode 0700: nobody else may enter
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const fs::path root = tmpl, clone = root / "home/clone", subs = root / "subs";
  REQUIRE(shell("git clone -q " + kRepo.string() + " " + clone.string()) == 0);
  REQUIRE_FALSE(fs::exists(clone / "build"));
  // The makefiles the grader under test speaks to: the working copy's (the same as the clone's
  // in CI; while grading's make targets are being changed, the clone's may be older).
  fs::copy(kRepo / "Makefile", clone / "Makefile", fs::copy_options::overwrite_existing);
  fs::copy(kRepo / "mk", clone / "mk", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const std::string stub = *read_file(clone / "labs/lab1_naive_sum.cu");
  const std::string solution = *read_file(clone / "solutions/lab1_naive_sum.cu");
  std::ofstream(clone / "labs/lab1_naive_sum.cu") << solution;  // the instructor tries lab 1, uncommitted
  for (const auto& [student, text] : {std::pair{"reference_copy", solution}, {"stub", stub}}) {
    fs::create_directories(subs / student);
    std::ofstream(subs / student / "lab1_naive_sum.cu") << text;
  }
  auto args = [&](const fs::path& grades) {
    return std::vector<std::string>{grader(),        "--repo",        clone.string(), "--lab",           "1",
                                    "--submissions", subs.string(),   "--grades",     grades.string(),   "--backend",
                                    "cpu",           "--run-timeout", "120",          "--check-timeout", "25",
                                    "--no-report"};
  };

  const fs::path grades = root / "grades";
  const int status = run_grader(args(grades), root / "grade.log", false);
  const std::string log = read_file(root / "grade.log").value_or("");
  INFO(log);
  REQUIRE(status == 0);
  auto book = rows(grades);
  REQUIRE(book.count("reference_copy"));
  CHECK(book["reference_copy"][0] == book["reference_copy"][1]);  // full marks
  CHECK(book["reference_copy"][2] == "graded");
  CHECK(book["stub"][0] == "0");
  CHECK(book["stub"][2] == "graded");
  CHECK(log.find("could not grade") == std::string::npos);
  // The stub the students' path saw, and the similarity report leaves out, is the committed one.
  const json summary = json::parse(read_file(grades / "lab1/summary.json").value_or("{}"));
  CHECK(read_file(summary.value("stub", "")).value_or("") == stub);

  if (::geteuid() != 0) {
    MESSAGE("the refusals are skipped: only root jails students (this test runs as uid " << ::geteuid() << ")");
  } else {
    // In a container that refuses namespaces, without --allow-degraded: no student's result.
    const fs::path refused = root / "grades-refused";
    CHECK(run_grader(args(refused), root / "refused.log", true) == 2);
    const std::string why = read_file(root / "refused.log").value_or("");
    CHECK_MESSAGE(why.find("stopped before grading anyone") != std::string::npos, why);
    CHECK_MESSAGE(why.find("--allow-degraded") != std::string::npos, why);
    CHECK(results_written(refused) == 0);
    // With --allow-degraded, a student's build runs in the real folders as its own uid, which
    // cannot enter the closed folder the clone is in: the grader says which, and grades nobody.
    const fs::path closed = root / "grades-closed";
    std::vector<std::string> degraded = args(closed);
    degraded.push_back("--allow-degraded");
    CHECK(run_grader(degraded, root / "closed.log", true) == 2);
    const std::string hint = read_file(root / "closed.log").value_or("");
    CHECK_MESSAGE(hint.find(root.string() + " is closed to other users") != std::string::npos, hint);
    CHECK(results_written(closed) == 0);
  }
  std::error_code ec;
  fs::remove_all(root, ec);
}
