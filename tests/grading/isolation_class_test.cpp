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

#include <chrono>
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
const char* kSmallChecks[] = {"one_element",        "two_elements",    "one_partial_block", "one_full_block",
                              "partial_last_block", "two_full_blocks", "odd_size"};
// What each small check of a spy stands for (the fixture's header says so).
const char* kSpyLeak[] = {"read a file it must not see",     "wrote a file outside its jail",
                          "saw the grader in /proc",         "found its twin's files",
                          "found its twin's IPC objects",    "reached its twin's sockets",
                          "wrote more than 300 MB in pieces"};

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

std::string check_status(const json& r, const std::string& id) {
  for (const auto& c : r["checks"])
    if (c["id"] == id) return c["status"];
  return "missing";
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
  const auto t0 = std::chrono::steady_clock::now();
  const int status =
      run({grader(), "--repo", kRepo.string(), "--lab", "1", "--submissions", kSubs.string(), "--grades",
           kGrades.string(), "--work", kWork.string(), "--backend", "cpu", "--uid-base", std::to_string(kUidBase),
           "--run-timeout", std::to_string(kRunTimeout), "--check-timeout", std::to_string(kCheckTimeout)},
          kRoot / "grader.log");
  const double class_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  auto rule = [&](const std::string& s) { return results.count(s) ? results[s].value("rule", "") : ""; };
  auto points = [&](const std::string& s) { return book.count(s) ? std::stod(book[s][1]) : -1; };
  auto feedback = [&](const std::string& s) { return contents(lab / "students" / s / "feedback.md"); };
  // An attack the lab's link contract refuses (it calls what a lab file may not: open, fork,
  // signals; docs/link_contract.md) never runs: 0 points, the contract's reason in its build
  // log. What it would have tried at run time is then the jail's own tests' (jail_test.cpp).
  auto contract_refused = [&](const std::string& s) {
    const bool refused = verdict(s) == "rejected" && results[s].value("rule", "") == "link_contract" &&
                         results[s].value("build_log", "").find("link contract") != std::string::npos;
    if (refused) MESSAGE(s << " is refused by the link contract before it runs: its run-time checks are left out");
    return refused;
  };

  // Text the compiler reads differently from the old rules, #line, assembly and probes.
  const std::map<std::string, std::string> rejected = {
      {"desync_comment", "include_path"},   {"desync_raw_prefix", "include_path"},
      {"desync_splice", "include_path"},    {"line_directive", "line_directive"},
      {"incbin_section", "inline_asm"},     {"probe_has_include", "include_probe"},
      {"probe_dependency", "include_probe"}};
  for (const auto& [s, expected_rule] : rejected) {
    CHECK_MESSAGE(verdict(s) == "rejected", s);
    CHECK_MESSAGE(rule(s) == expected_rule, s << ": " << results[s].value("reason", ""));
    CHECK_MESSAGE(points(s) == 0, s);
  }
  // A probe the text rules cannot see (__has_include made by pasting) asks the build's own
  // view, where none of the grading machine's files exists: it builds, and does no work.
  CHECK(verdict("probe_pasted") == "graded");
  // Assembly is no text rule: the .incbin of the reference solution finds no such file in the
  // build's view of the course, so it does not build (the operating system's answer, not a name's).
  CHECK(verdict("incbin_macro") == "build_failed");
  CHECK(points("incbin_macro") == 0);
  CHECK_MESSAGE(results["probe_pasted"].value("build_log", "").find("PROBE-") == std::string::npos,
                results["probe_pasted"].value("build_log", ""));
  CHECK(points("probe_pasted") == 0);

  // Words in a compile error are shown, never acted on: the reference was built once, before.
  CHECK(verdict("prints_words") == "build_failed");
  CHECK(feedback("prints_words").find("Permission denied") != std::string::npos);
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

  // The spies: each kind of leak would have failed one small check.
  for (const char* spy : {"spy_a", "spy_b"}) {
    if (contract_refused(spy)) {
      CHECK(points(spy) == 0);
      continue;
    }
    CHECK_MESSAGE(verdict(spy) == "graded", spy);
    for (size_t i = 0; i < std::size(kSmallChecks); ++i)
      CHECK_MESSAGE(check_status(results[spy], kSmallChecks[i]) == "pass",
                    spy << " " << kSpyLeak[i] << " (check " << kSmallChecks[i] << ": "
                        << check_status(results[spy], kSmallChecks[i]) << ")");
  }

  // Output and words of a run with a hidden check: none of it, not even how much, reaches the
  // student; what looks like the jail's own lines changes nothing.
  const json& chatty = results["chatty"];
  CHECK(verdict("chatty") == "graded");
  for (const char* c : kSmallChecks) CHECK_MESSAGE(check_status(chatty, c) == "pass", "chatty " << c);
  CHECK(chatty.value("run_log", "x") == "");
  CHECK(chatty.value("reason", "x") == "");
  const std::string chatty_notes = chatty["notes"].dump();
  CHECK_MESSAGE(chatty_notes.find("more than 64 KiB") != std::string::npos, chatty_notes);
  CHECK_MESSAGE(!std::regex_search(chatty_notes, std::regex("printed [0-9]+ bytes")), chatty_notes);
  CHECK_MESSAGE(chatty_notes.find("memory limit") == std::string::npos, chatty_notes);
  for (const char* words : {"cudalab-jail", "Permission denied", "....", "memory limit", "300 s"})
    CHECK_MESSAGE(feedback("chatty").find(words) == std::string::npos, words);

  // A hang costs one run limit, whatever it does with signals and detached children; a flood
  // from detached writers costs about what a quiet student does. Both next to probe_pasted,
  // a quiet student with a build of the same size.
  const double quiet = results["probe_pasted"]["seconds"].get<double>();
  const double sleeper = results["sleeper"]["seconds"].get<double>(),
               flooder = results["flooder"]["seconds"].get<double>();
  if (verdict("sleeper") == "graded" || verdict("flooder") == "graded")
    MESSAGE("hang and flood: the sleeper took "
            << sleeper << " s (build and run) with a " << kRunTimeout << " s run limit and a " << kCheckTimeout
            << " s check limit, the flooder " << flooder << " s, a quiet student " << quiet << " s; the class of "
            << results.size() << " took " << class_seconds << " s");
  CHECK(points("sleeper") == 0);
  if (!contract_refused("sleeper")) {
    CHECK(verdict("sleeper") == "graded");
    for (const auto& c : results["sleeper"]["checks"]) CHECK_MESSAGE(c["status"] == "error", c["id"]);
    CHECK(results["sleeper"].value("reason", "").find("time allowed for the whole run") != std::string::npos);
    CHECK(sleeper >= kRunTimeout);
    CHECK(sleeper <= quiet + kRunTimeout + 8);
  }
  if (!contract_refused("flooder")) {
    CHECK(verdict("flooder") == "graded");
    for (const char* c : kSmallChecks) CHECK_MESSAGE(check_status(results["flooder"], c) == "pass", "flooder " << c);
    CHECK(results["flooder"].value("reason", "x") == "");
    CHECK(results["flooder"]["notes"].dump().find("only the beginning was kept") != std::string::npos);
    CHECK(flooder < quiet + kRunTimeout);
  }

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
