// Issue 9's attacks graded by the real grader, as root, on the CPU backend: one small class of
// lab 1 fixtures (tests/grading/fixtures/lab1-isolation/, plus entries the test makes: a hard
// link to a root-only file, a 100 MB file, a file name full of terminal escapes), graded once.
// Each fixture's expected verdict is checked, then that nothing leaked (no reference line, no
// root-only secret, no grader path, no byte of control, no program output or byte count of a
// run with a hidden check in any file a student or the instructor reads; the spies' marker in
// no file outside their jails), then that nothing was left behind (no process, System V
// object or scratch file of any student's uid; no run folder), and what a hang costs.
// Skipped (with a message) when not root: without root there is no jail to test.
#include <doctest/doctest.h>

#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "leftovers.h"
#include "shipped_stub.h"
#include "grader/student_jail.h"
#include "safe_io/files.h"

using namespace grading;
using namespace grading_test;
using nlohmann::json;

namespace {

const fs::path kRepo = CUDALAB_REPO;
const fs::path kRoot = "/tmp/cudalab-isolation-test-" + std::to_string(::getpid());
// The checkout's owner (the checkout is a folder of the test's own: see `make clean` below).
const fs::path kCheckout = kRoot / "checkout";
const fs::path kWork = kCheckout / "build/grading/lab1";
const fs::path kSubs = kRoot / "subs", kGrades = kRoot / "grades", kMarks = kRoot / "marks";
const uid_t kOwner = 391999;
const unsigned kUidBase = 391000;  // apart from the other tests' students (200000, 390000)
// A hang costs the student's whole run limit: small here, so that the test is quick; a check
// limit that leaves the quiet fixtures' small checks ample room on a loaded machine.
constexpr int kRunTimeout = 20, kCheckTimeout = 8;
const std::string kEscapeName =
    "esc\x1b[2K\r\x1b[32m23-23 (graded)\x1b[0m\xc2\x9b"
    "1A\xe2\x80\xae";
const std::string kHardlinkSecret = "root:CUDALAB-HARDLINK-SECRET:19000:0:99999:7:::";

std::string grader() {
  const char* g = std::getenv("CUDALAB_GRADER");
  return g ? g : (kRepo / "build/grading/cudalab-grade").string();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// A file's first 64 MiB ("" when it cannot be read), read at its size.
std::string contents(const fs::path& p) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(p, ec);
  return ec ? std::string() : read_file(p, size_t(std::min<uintmax_t>(size, 64u << 20))).value_or("");
}

std::string placed(std::string text, const std::string& self, const std::string& twin) {
  text = replace_all(text, "@REPO@", kRepo.string());
  text = replace_all(text, "@WORK@", kWork.string());
  text = replace_all(text, "@SUBS@", kSubs.string());
  text = replace_all(text, "@GRADES@", kGrades.string());
  text = replace_all(text, "@MARK@", kMarks.string());
  text = replace_all(text, "@SELF@", self);
  return replace_all(text, "@TWIN@", twin);
}

void make_class() {
  fs::remove_all(kRoot);
  fs::create_directories(kSubs);
  const fs::path fixtures = kRepo / "tests/grading/fixtures/lab1-isolation";
  for (const auto& e : fs::directory_iterator(fixtures)) {
    const std::string name = e.path().filename().string();
    const std::string text = contents(e.path() / "lab1_naive_sum.cu");
    fs::create_directories(kSubs / name);
    std::ofstream(kSubs / name / "lab1_naive_sum.cu") << placed(text, name, "spy_b");
    if (name == "spy_a") {
      fs::create_directories(kSubs / "spy_b");
      std::ofstream(kSubs / "spy_b" / "lab1_naive_sum.cu") << placed(text, "spy_b", "spy_a");
    }
  }
  // A hard link to a root-only file (as /etc/shadow would be), a 100 MB file (sparse), and a
  // flat file whose name and text carry terminal escapes, a C1 CSI and a bidi override.
  std::ofstream(kRoot / "rootonly") << kHardlinkSecret << "\n";
  ::chmod((kRoot / "rootonly").c_str(), 0600);
  fs::create_directories(kSubs / "hardlinked");
  fs::create_hard_link(kRoot / "rootonly", kSubs / "hardlinked" / "lab1_naive_sum.cu");
  fs::create_directories(kSubs / "big");
  std::ofstream(kSubs / "big" / "lab1_naive_sum.cu") << "// 100 MB of lab file\n";
  fs::resize_file(kSubs / "big" / "lab1_naive_sum.cu", 100u << 20);
  std::ofstream(kSubs / (kEscapeName + "_lab1_naive_sum.cu"))
      << "#include \"cudalab/lab1.h\"\n#error \"\x1b]0;pwned\x07\x1b[2J\x1b[32m25/25 (graded)\xe2\x80\xae\"\n";
  // What the probes and the spies look for: notes in the grades, a folder a spy could mark.
  fs::create_directories(kGrades / "lab1");
  std::ofstream(kGrades / "lab1" / "instructor-notes.txt") << "the instructor's notes\n";
  fs::create_directories(kMarks);
  ::chmod(kMarks.c_str(), 01777);
  // The checkout is its owner's, and so is its build/ folder (made by their own `make`): the
  // grader, as root, makes the work folder inside it.
  fs::create_directories(kCheckout / "build/grading");
  for (const fs::path& p : {kCheckout, kCheckout / "build", kCheckout / "build/grading"})
    if (::chown(p.c_str(), kOwner, kOwner) != 0) FAIL("chown");
  ::chmod(kRoot.c_str(), 0755);
}

int run(const std::vector<std::string>& args, const fs::path& log) { return grading_test::run_logged(args, log); }

// `cmd` run as `uid` (a child that drops to it): its exit status.
int run_as(uid_t uid, const std::string& cmd) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0) _exit(126);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// Every regular file under `dir` (no link followed) whose first 64 MiB hold `needle`.
std::vector<std::string> files_holding(const fs::path& dir, const std::string& needle) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    if (contents(it->path()).find(needle) != std::string::npos) found.push_back(it->path().string());
  }
  return found;
}

// The lines of the reference solution that are not in the lab's stub as shipped (a lab 1 filled
// in in the working copy would leave none): its own code.
std::vector<std::string> reference_lines() {
  std::set<std::string> stub;
  std::istringstream s(shipped_stub(kRepo, "labs/lab1_naive_sum.cu"));
  for (std::string line; std::getline(s, line);) stub.insert(line);
  std::vector<std::string> own;
  std::istringstream r(contents(kRepo / "solutions/lab1_naive_sum.cu"));
  for (std::string line; std::getline(r, line);) {
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line.size() - first < 20 || stub.count(line)) continue;
    own.push_back(line.substr(first));
  }
  return own;
}

}  // namespace

TEST_CASE("isolation: issue 9's attacks, graded as root on the CPU backend: verdicts, no leak, nothing left") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: the grader jails students only as root (this test runs as uid " << ::geteuid() << ")");
    return;
  }
  make_class();
  const int status =
      run({grader(), "--repo", kRepo.string(), "--lab", "1", "--submissions", kSubs.string(), "--grades",
           kGrades.string(), "--work", kWork.string(), "--backend", "cpu", "--uid-base", std::to_string(kUidBase),
           "--run-timeout", std::to_string(kRunTimeout), "--check-timeout", std::to_string(kCheckTimeout)},
          kRoot / "grader.log");
  const std::string log = contents(kRoot / "grader.log");
  INFO(log);
  REQUIRE(status == 0);

  // Every student's result, by name.
  const fs::path lab = kGrades / "lab1";
  std::map<std::string, json> results;
  for (const auto& e : fs::directory_iterator(lab / "students"))
    results[e.path().filename().string()] = json::parse(contents(e.path() / "result.json"));
  std::string escaped;  // the escape-named student, under the name the grader made safe
  for (const auto& [name, r] : results)
    if (name.rfind("esc", 0) == 0) escaped = name;
  CHECK(results.size() == 18);
  REQUIRE_FALSE(escaped.empty());
  std::map<std::string, std::vector<std::string>> book;
  {
    std::istringstream in(contents(lab / "gradebook.csv"));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::istringstream l(line);
      for (std::string cell; cells.size() < 4 && std::getline(l, cell, ',');) cells.push_back(cell);
      book[cells[0]] = cells;
    }
  }
  auto verdict = [&](const std::string& s) { return results.count(s) ? results[s].value("verdict", "") : "absent"; };
  auto points = [&](const std::string& s) { return book.count(s) ? std::stod(book[s][1]) : -1; };
  auto feedback = [&](const std::string& s) { return contents(lab / "students" / s / "feedback.md"); };
  // Each fixture student's verdict, rule and points are written in their own file (tests/README.md,
  // "Planted files"), judged by the planted files' one runner: the text rules' refusals (#line,
  // assembly, probes, text the compiler reads differently), a probe they cannot see that builds
  // and does no work, assembly that finds no file in the build's view of the course, words in a
  // compile error shown and never acted on, and the attacks the link contract refuses before
  // they run (what they would try at run time is the jail's own tests', jail_test.cpp).
  {
    const fs::path judged = kRoot / "class-judged.txt";
    const int judged_status = std::system(("cd " + kRepo.string() +
                                           " && tests/planted/run.py class --students "
                                           "tests/grading/fixtures/lab1-isolation --grades " +
                                           kGrades.string() + " > " + judged.string() + " 2>&1")
                                              .c_str());
    CHECK_MESSAGE(judged_status == 0, contents(judged));
  }
  CHECK_MESSAGE(results["probe_pasted"].value("build_log", "").find("PROBE-") == std::string::npos,
                results["probe_pasted"].value("build_log", ""));

  // Words in a compile error are shown, never acted on: the reference was built once, before.
  struct stat ref {
  }, student{};
  REQUIRE(::stat((kWork / "_reference" / "bin" / "lab").c_str(), &ref) == 0);
  REQUIRE(::stat((kWork / "prints_words" / "src" / "lab1_naive_sum.cu").c_str(), &student) == 0);
  CHECK(ref.st_mtim.tv_sec <= student.st_mtim.tv_sec);
  size_t reference_builds = 0;
  for (size_t at = log.find("building the checker"); at != std::string::npos;
       at = log.find("building the checker", at + 1))
    ++reference_builds;
  CHECK(reference_builds == 1);

  // Submissions read without following links, with their real size.
  CHECK(verdict("hardlinked") == "unreadable");
  CHECK(results["hardlinked"].value("reason", "").find("hard link") != std::string::npos);
  CHECK(verdict("big") == "unreadable");
  CHECK_MESSAGE(results["big"].value("reason", "").find("100.0 MB") != std::string::npos,
                results["big"].value("reason", ""));
  CHECK(verdict(escaped) == "build_failed");

  CHECK(verdict("spy_b") == verdict("spy_a"));  // the twin, graded under another name
  CHECK(points("spy_b") == 0);

  // Output and words of a run with a hidden check: none of it, not even how much, reaches the
  // student; what looks like the jail's own lines changes nothing.
  const json& chatty = results["chatty"];
  CHECK(chatty.value("run_log", "x") == "");
  CHECK(chatty.value("reason", "x") == "");
  const std::string chatty_notes = chatty["notes"].dump();
  CHECK_MESSAGE(chatty_notes.find("more than 64 KiB") != std::string::npos, chatty_notes);
  CHECK_MESSAGE(!std::regex_search(chatty_notes, std::regex("printed [0-9]+ bytes")), chatty_notes);
  CHECK_MESSAGE(chatty_notes.find("memory limit") == std::string::npos, chatty_notes);

  // Nothing leaked. No line of the reference, no root-only secret, no grader path, anywhere a
  // student or the instructor reads; no control byte either.
  std::vector<fs::path> readable = {lab / "gradebook.csv", lab / "summary.json", lab / "report.html",
                                    kRoot / "grader.log"};
  for (const auto& [s, r] : results)
    for (const char* f : {"feedback.md", "results.json"}) readable.push_back(lab / "students" / s / f);
  const auto own_lines = reference_lines();
  REQUIRE(own_lines.size() >= 5);
  for (const auto& f : readable) {
    const std::string text = contents(f);
    for (const auto& line : own_lines)
      CHECK_MESSAGE(text.find(line) == std::string::npos, f << " quotes the reference: " << line);
    CHECK_MESSAGE(text.find("CUDALAB-HARDLINK-SECRET") == std::string::npos, f);
    for (const std::string control : {"\x1b", "\r", "\x07", "\xc2\x9b", "\xe2\x80\xae"})
      CHECK_MESSAGE(text.find(control) == std::string::npos,
                    f << " holds a control byte (" << int(control[0] & 0xff) << ")");
  }
  // What a student reads: no grader path they did not write themselves (a rejected #include
  // is quoted back as written), and the hidden check only as Gradescope's hidden test.
  for (const auto& [s, r] : results) {
    const std::string own = contents(kSubs / s / "lab1_naive_sum.cu");
    const std::string fb = feedback(s), gs = contents(lab / "students" / s / "results.json");
    for (const std::string& path : {kRoot.string(), kRepo.string() + "/"})
      if (own.find(path) == std::string::npos) {
        CHECK_MESSAGE(fb.find(path) == std::string::npos, s << "'s feedback names " << path);
        CHECK_MESSAGE(gs.find(path) == std::string::npos, s << "'s results.json names " << path);
      }
    CHECK_MESSAGE(fb.find("million_and_change") == std::string::npos, s);
    for (const auto& t : json::parse(gs)["tests"])
      if (t.dump().find("million_and_change") != std::string::npos) CHECK_MESSAGE(t["visibility"] == "hidden", s);
  }
  // The root-only secret was not copied anywhere (the work folder, the grades' source copies);
  // the spies' mark is nowhere outside their jails; the instructor's notes are as they were.
  CHECK(files_holding(kWork, "CUDALAB-HARDLINK-SECRET").empty());
  CHECK(files_holding(kGrades, "CUDALAB-HARDLINK-SECRET").empty());
  for (const fs::path& dir : {kWork, kGrades, kSubs, kMarks}) {
    const auto marked = files_holding(dir, "cudalab-spy-was-here");
    CHECK_MESSAGE(marked.empty(), marked.front());
  }
  CHECK(fs::is_empty(kMarks));
  CHECK(contents(kGrades / "lab1" / "instructor-notes.txt") == "the instructor's notes\n");

  // Nothing left behind: no process, System V object or scratch file of any student's uid, no
  // run folder (the spies' 256 MiB segment, detached holders, pieces and sockets included).
  for (unsigned i = 1; i <= results.size(); ++i) {
    const uid_t uid = kUidBase + i;
    CHECK_MESSAGE(processes_of(uid) == 0, "uid " << uid);
    CHECK_MESSAGE(sysv_objects_of(uid) == 0, "uid " << uid);
    CHECK_MESSAGE(posix_queues_of(uid) == 0, "uid " << uid);
    CHECK_MESSAGE(scratch_files_of(uid) == 0, "uid " << uid);
  }
  for (const auto& [s, r] : results) {
    CHECK_MESSAGE(!fs::exists(kWork / s / "run"), s);
    CHECK_MESSAGE(!fs::exists(kWork / s / "timing"), s);
  }

  // `make clean` after grading as root: the work folder is the checkout owner's again, so that
  // they can remove build/ without root.
  GradingContext ctx;
  ctx.repo = kCheckout;
  ctx.work = kWork;
  ctx.jailed = true;
  finish_work_folder(ctx);
  CHECK(run_as(kOwner, "rm -rf " + (kCheckout / "build").string()) == 0);
  CHECK_FALSE(fs::exists(kCheckout / "build"));

  if (!std::getenv("CUDALAB_KEEP_TEST_FILES")) {
    std::error_code ec;
    fs::remove_all(kRoot, ec);
  }
}
