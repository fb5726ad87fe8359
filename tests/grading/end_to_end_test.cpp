// Every fixture submission graded end to end through the CPU backend, by the grader program
// itself: each verdict, the gradebook, Gradescope's schema, resumption, and a kill mid-run.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "safe_io/files.h"
#include "safe_io/secrets.h"

using namespace grading;
using nlohmann::json;

namespace {

// A folder of this run's own (another checkout's tests may run at the same time); the
// writes_grades fixture's aim is pointed at it when the submissions are copied.
const fs::path kRoot = "/tmp/cudalab-grading-test-" + std::to_string(::getpid());
const fs::path kRepo = CUDALAB_REPO;

std::string grader() {
  const char* g = std::getenv("CUDALAB_GRADER");
  return g ? g : (kRepo / "build/grading/cudalab-grade").string();
}

// Each check may take this long (the checker's --check-timeout): a hung check costs this much.
// Lab 1's largest check takes 1-3 s on the CPU backend alone, but under `make -j2 test` on a
// 2-core CI machine the emulator tests, the report's browser and Slurm run beside it: a CI run
// with a 10 s limit once lost the correct students' points to it (all 7 "full" checks failed).
constexpr int kCheckTimeout = 25;

std::vector<std::string> grader_args(const fs::path& grades, const fs::path& work, const std::string& subs = "subs") {
  return {grader(),
          "--repo",
          kRepo.string(),
          "--lab",
          "1",
          "--submissions",
          (kRoot / subs).string(),
          "--grades",
          grades.string(),
          "--work",
          work.string(),
          "--backend",
          "cpu",
          "--run-timeout",
          "120",
          "--check-timeout",
          std::to_string(kCheckTimeout)};
}

// The students of the run that is killed mid-way: a few, so that it is quick.
const char* kSmallClass[] = {"correct", "wrong_answer", "exit_frames", "context_crash", "host_sum"};
// The students graded again with the emulator's verdicts taken from a run of their own (what a
// GPU grader does for barriers and races): a barrier inside an `if`, every thread writing the
// block's sum, a correct file, the stub.
const char* kEmulatorClass[] = {"barrier_in_if", "every_thread_writes", "correct", "stub_as_handed_out"};

// The students whose rows differ between two gradebooks, with both rows: what a failed
// comparison needs to say.
std::string differing_rows(const std::map<std::string, std::vector<std::string>>& a,
                           const std::map<std::string, std::vector<std::string>>& b) {
  auto join = [](const std::vector<std::string>& cells) {
    std::string s;
    for (const auto& c : cells) s += (s.empty() ? "" : ",") + c;
    return s;
  };
  std::string out;
  for (const auto& [student, row] : a) {
    auto it = b.find(student);
    if (it == b.end())
      out += student + ": only in the first\n";
    else if (it->second != row)
      out += join(row) + "\n  vs " + join(it->second) + "\n";
  }
  for (const auto& [student, row] : b)
    if (!a.count(student)) out += student + ": only in the second\n";
  return out;
}

pid_t start(const std::vector<std::string>& args, const fs::path& log) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stderr);
    (void)f;
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void make_submissions() {
  fs::remove_all(kRoot);
  fs::create_directories(kRoot / "subs");
  fs::copy(kRepo / "tests/grading/fixtures/lab1", kRoot / "subs", fs::copy_options::recursive);
  {
    const fs::path aim = kRoot / "subs" / "writes_grades" / "lab1_naive_sum.cu";
    std::string text = *read_file(aim);
    const std::string from = "/tmp/cudalab-grading-test/";
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), kRoot.string() + "/");
    std::ofstream(aim) << text;
  }
  fs::create_directories(kRoot / "subs" / "empty");
  const std::string correct = *read_file(kRepo / "tests/grading/fixtures/lab1/correct/lab1_naive_sum.cu");
  std::string crlf = "\xEF\xBB\xBF";
  for (char c : correct) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  fs::create_directories(kRoot / "subs" / "crlf_bom");
  std::ofstream(kRoot / "subs" / "crlf_bom" / "lab1_naive_sum.cu", std::ios::binary) << crlf;
  fs::create_directories(kRoot / "subs" / "two_candidates");
  std::ofstream(kRoot / "subs" / "two_candidates" / "lab1.cu") << correct;
  std::ofstream(kRoot / "subs" / "two_candidates" / "lab1_old.cu") << correct;
  fs::create_directories(kRoot / "subs" / "binary");
  fs::copy_file("/bin/true", kRoot / "subs" / "binary" / "lab1_naive_sum.cu");
  // Odd entries: a folder named "...", a FIFO and a symbolic link as a student's lab file, a
  // socket-like special file at the top (a FIFO named as a flat submission).
  fs::create_directories(kRoot / "subs" / "...");
  fs::copy_file(kRepo / "tests/grading/fixtures/lab1/correct/lab1_naive_sum.cu",
                kRoot / "subs" / "..." / "lab1_naive_sum.cu");
  fs::create_directories(kRoot / "subs" / "fifo_file");
  REQUIRE(::mkfifo((kRoot / "subs" / "fifo_file" / "lab1_naive_sum.cu").c_str(), 0644) == 0);
  fs::create_directories(kRoot / "subs" / "linked_file");
  fs::create_symlink(kRepo / "solutions/lab1_naive_sum.cu", kRoot / "subs" / "linked_file" / "lab1_naive_sum.cu");
  REQUIRE(::mkfifo((kRoot / "subs" / "piped_lab1.cu").c_str(), 0644) == 0);
  fs::create_directories(kRoot / "small");
  for (const char* s : kSmallClass) fs::copy(kRoot / "subs" / s, kRoot / "small" / s, fs::copy_options::recursive);
  fs::create_directories(kRoot / "emulator");
  for (const char* s : kEmulatorClass)
    fs::copy(kRoot / "subs" / s, kRoot / "emulator" / s, fs::copy_options::recursive);
}

std::map<std::string, std::vector<std::string>> gradebook(const fs::path& grades) {
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(*read_file(grades / "lab1" / "gradebook.csv"));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line);
    // The reason column (last, maybe quoted) is left out: the comparison is of points (the
    // student, total, maximum, verdict, backend, 10 checks, barriers, races, speed).
    for (int i = 0; i < 18 && std::getline(l, cell, ','); ++i) cells.push_back(cell);
    rows[cells[0]] = cells;
  }
  return rows;
}

json result(const fs::path& grades, const std::string& student) {
  return json::parse(*read_file(grades / "lab1" / "students" / student / "result.json"));
}

// Whether `student`'s saved files are whole and agree with the gradebook's `total` of
// `maximum`: result.json is theirs and fully passed, feedback.md and results.json carry that score.
std::string intact(const fs::path& grades, const std::string& student, const std::string& total,
                   const std::string& maximum) {
  const fs::path dir = grades / "lab1" / "students" / student;
  json r = json::parse(*read_file(dir / "result.json"));
  if (r.value("student", "") != student || r.value("verdict", "") != "graded") return "result.json is not theirs";
  for (const auto& c : r["checks"])
    if (c["status"] != "pass" && c["status"] != "skipped")
      return "check " + c["id"].get<std::string>() + " did not pass";
  const std::string feedback = read_file(dir / "feedback.md").value_or("");
  if (feedback.find("**Score: " + total + " / " + maximum + "**") == std::string::npos)
    return "feedback.md does not say " + total + " / " + maximum;
  json gs = json::parse(*read_file(dir / "results.json"));
  if (gs["score"].get<double>() != std::stod(total)) return "results.json scores " + gs["score"].dump();
  return "";
}

std::string check_status(const json& r, const std::string& id) {
  for (const auto& c : r["checks"])
    if (c["id"] == id) return c["status"];
  return "missing";
}

}  // namespace

TEST_CASE("end to end: every fixture's verdict, the gradebook, Gradescope JSON, resumption, a kill") {
  make_submissions();
  const fs::path grades = kRoot / "grades";
  fs::create_directories(grades);
  REQUIRE(wait_for(start(grader_args(grades, kRoot / "work"), kRoot / "run1.log")) == 0);
  INFO(*read_file(kRoot / "run1.log"));

  auto book = gradebook(grades);
  CHECK(book.size() == 36);
  auto full = [&](const std::string& s) { return book.count(s) && book[s][1] == book[s][2] && book[s][1] != "0"; };
  auto verdict = [&](const std::string& s) { return book.count(s) ? book[s][3] : std::string("absent"); };
  auto messages = [&](const std::string& s) { return result(grades, s)["checks"].dump(); };

  // Each fixture student's verdict, points, rule and named checks are written in their own file
  // (tests/README.md, "Planted files"), judged by the planted files' one runner.
  {
    const fs::path judged = kRoot / "class-judged.txt";
    const std::string cmd = "cd " + kRepo.string() +
                            " && tests/planted/run.py class --students tests/grading/fixtures/lab1 --grades " +
                            grades.string() + " > " + judged.string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    CHECK_MESSAGE(status == 0, read_file(judged).value_or("(the runner wrote nothing)"));
  }
  CHECK(full("crlf_bom"));
  CHECK(verdict("empty") == "no_submission");
  CHECK(verdict("two_candidates") == "no_submission");
  CHECK(verdict("binary") == "unreadable");
  CHECK(result(grades, "stub_as_handed_out")["reason"].get<std::string>().rfind("stub:", 0) == 0);
  CHECK(result(grades, "wrong_answer")["reason"].get<std::string>().find("stub") == std::string::npos);

  // Odd entries, each with a verdict of its own.
  CHECK(full("unnamed"));  // the folder "..."
  CHECK(result(grades, "unnamed")["notes"].dump().find("...") != std::string::npos);
  CHECK(verdict("fifo_file") == "unreadable");
  CHECK(result(grades, "fifo_file")["reason"].get<std::string>().find("FIFO") != std::string::npos);
  CHECK(verdict("linked_file") == "unreadable");
  CHECK(result(grades, "linked_file")["reason"].get<std::string>().find("symbolic link") != std::string::npos);
  CHECK(verdict("piped") == "unreadable");

  // Every check the checker lists is there, once, whatever the runner did with its argv.
  CHECK(result(grades, "argv_rewrite")["checks"].size() == result(grades, "correct")["checks"].size());
  // Timing attacks: on the CPU backend timing is emulated and speed is not graded, so the
  // checks decide: caching and a second stream are correct answers here (on a GPU they get no
  // undeserved time).
  for (const char* s : {"cached_answer", "second_stream"}) {
    CHECK(result(grades, s)["timing_status"] == "emulated");
    CHECK(result(grades, s)["student_ms"].is_null());
  }

  // A hang costs one check time limit: the checker stops the runner and goes on.
  json loop = result(grades, "infinite_loop");
  // It took at least the check limit, and at most a correct student's time plus that limit
  // (plus slack for a loaded machine): the hang cost one check limit, not a whole run's.
  const double loop_s = loop["seconds"].get<double>(), correct_s = result(grades, "correct")["seconds"].get<double>();
  MESSAGE("infinite_loop took " << loop_s << " s (build and run), correct " << correct_s << " s, with a "
                                << kCheckTimeout << " s check limit");
  CHECK(loop_s >= kCheckTimeout);
  CHECK(loop_s <= correct_s + kCheckTimeout + 8);

  // Every thread writes the block's sum (its verdict in its header): the feedback's first word on
  // what went wrong names the line and the buffer.
  {
    const std::string fb = *read_file(grades / "lab1" / "students" / "every_thread_writes" / "feedback.md");
    const size_t wrong = fb.find("## What went wrong");
    REQUIRE(wrong != std::string::npos);
    const size_t first = fb.find("**`", wrong);
    REQUIRE(first != std::string::npos);
    const std::string line = fb.substr(first, fb.find('\n', first) - first);
    CHECK_MESSAGE(
        line.rfind("**`races`**: a data race on global memory (d_block_sums): writes at lab1_naive_sum.cu:22 ", 0) == 0,
        line);
  }

  // The student sees their own file's name, never the grader's folders.
  CHECK(messages("context_crash").find(kRoot.string()) == std::string::npos);

  // writes_grades tried to overwrite the grades and `correct`'s files and program: nothing changed.
  CHECK_MESSAGE(intact(grades, "correct", book["correct"][1], book["correct"][2]) == "", "correct");
  CHECK(result(grades, "output_flood")["notes"].dump().find("only the beginning was kept") != std::string::npos);
  CHECK(result(grades, "crlf_bom")["notes"].dump().find("CRLF") != std::string::npos);
  CHECK(fs::exists(grades / "lab1" / "students" / "correct" / "feedback.md"));
  // Hidden checks stay out of the feedback, and so does what the students' code printed (lab
  // 1 has a hidden check, so no program output is kept at all).
  CHECK(read_file(grades / "lab1" / "students" / "wrong_answer" / "feedback.md")->find("million_and_change") ==
        std::string::npos);
  for (const char* s : {"fake_output", "writes_grades", "output_flood", "memory_scan"}) {
    CHECK(result(grades, s)["run_log"] == "");
    const std::string fb = *read_file(grades / "lab1" / "students" / s / "feedback.md");
    CHECK_MESSAGE(fb.find("CUDALAB-VERDICT") == std::string::npos, s);
    CHECK_MESSAGE(fb.find("could not write") == std::string::npos, s);
    CHECK_MESSAGE(fb.find("checks passed\n") == std::string::npos, s);
  }

  // Gradescope's schema, checked by the jsonschema package.
  std::string cmd =
      "python3 -c 'import json,sys,jsonschema; s=json.load(open(sys.argv[1])); "
      "[jsonschema.validate(json.load(open(f)), s) for f in sys.argv[2:]]' " +
      (kRepo / "tests/grading/gradescope_results.schema.json").string();
  for (const auto& [student, row] : book)
    cmd += " " + (grades / "lab1" / "students" / student / "results.json").string();
  CHECK_MESSAGE(std::system(cmd.c_str()) == 0, "results.json does not follow Gradescope's schema");

  json summary = json::parse(*read_file(grades / "lab1" / "summary.json"));
  CHECK(summary["students"] == 36);
  // correct, flat_student, crlf_bom, output_flood, unnamed, cached_answer, second_stream
  CHECK(summary["passed"] == 7);
  // What the class report reads: the lab's checks in order, and per student a pseudonym (the
  // same on the next run, never the name), each check's status, and the source as graded
  // (only for files that were read as source: not a binary, not a link).
  CHECK(summary["checks"].size() == result(grades, "correct")["checks"].size());
  std::set<std::string> pseudonyms;
  std::map<std::string, json> by_student;
  for (const auto& r : summary["results"]) {
    by_student[r["student"]] = r;
    pseudonyms.insert(r["pseudonym"].get<std::string>());
    CHECK(r["pseudonym"].get<std::string>().rfind("anon-", 0) == 0);
    CHECK(r["pseudonym"].get<std::string>().find(r["student"].get<std::string>()) == std::string::npos);
  }
  CHECK(pseudonyms.size() == 36);
  CHECK(by_student["correct"]["checks"]["one_element"] == "pass");
  CHECK(by_student["correct"]["speed"]["status"] == "not graded");
  CHECK(fs::exists(by_student["correct"]["source"].get<std::string>()));
  CHECK(by_student["binary"]["source"] == "");
  CHECK(by_student["linked_file"]["source"] == "");
  CHECK(by_student["compile_error"]["source"] != "");

  // Run again: nothing is graded twice, and the gradebook is the same.
  REQUIRE(wait_for(start(grader_args(grades, kRoot / "work"), kRoot / "run2.log")) == 0);
  summary = json::parse(*read_file(grades / "lab1" / "summary.json"));
  CHECK(summary["graded_this_run"] == 0);
  CHECK(summary["resumed"] == 36);
  CHECK_MESSAGE(gradebook(grades) == book, differing_rows(book, gradebook(grades)));
  for (const auto& r : summary["results"]) CHECK(by_student[r["student"]]["pseudonym"] == r["pseudonym"]);

  // A changed file is graded again.
  std::ofstream(kRoot / "subs" / "correct" / "lab1_naive_sum.cu", std::ios::app) << "// changed\n";
  REQUIRE(wait_for(start(grader_args(grades, kRoot / "work"), kRoot / "run3.log")) == 0);
  summary = json::parse(*read_file(grades / "lab1" / "summary.json"));
  CHECK(summary["graded_this_run"] == 1);
  CHECK_MESSAGE(gradebook(grades) == book, differing_rows(book, gradebook(grades)));

  // A rubric edited between runs: nobody is graded again, and every student's feedback and
  // results.json follow the new points, not only the gradebook.
  std::string toml = *read_file(kRepo / "grading/rubrics/lab1.toml");
  REQUIRE(toml.find("\nodd_size = 3\n") != std::string::npos);
  toml.replace(toml.find("\nodd_size = 3\n"), 14, "\nodd_size = 5\n");
  write_file_atomic(kRoot / "lab1-edited.toml", toml);
  std::vector<std::string> edited = grader_args(grades, kRoot / "work");
  edited.insert(edited.end(), {"--rubric", (kRoot / "lab1-edited.toml").string()});
  REQUIRE(wait_for(start(edited, kRoot / "run3b.log")) == 0);
  summary = json::parse(*read_file(grades / "lab1" / "summary.json"));
  CHECK(summary["graded_this_run"] == 0);
  const auto rescored = gradebook(grades);
  REQUIRE(rescored.count("correct"));
  CHECK(std::stod(rescored.at("correct")[1]) == std::stod(book["correct"][1]) + 2);
  CHECK_MESSAGE(intact(grades, "correct", rescored.at("correct")[1], rescored.at("correct")[2]) == "",
                "correct, rescored");

  // Killed mid-run (SIGKILL: no chance to clean up), then started again: the same gradebook
  // (for a small class, so that it is quick).
  const fs::path grades2 = kRoot / "grades-killed";
  const auto t_kill = std::chrono::steady_clock::now();
  pid_t pid = start(grader_args(grades2, kRoot / "work2", "small"), kRoot / "run4.log");
  sleep(unsigned(4 + random_u64() % 10));
  kill(pid, SIGKILL);
  wait_for(pid);
  REQUIRE(wait_for(start(grader_args(grades2, kRoot / "work2", "small"), kRoot / "run5.log")) == 0);
  summary = json::parse(*read_file(grades2 / "lab1" / "summary.json"));
  MESSAGE("after the kill, " << summary["resumed"] << " results were kept and " << summary["graded_this_run"]
                             << " graded, in "
                             << std::chrono::duration<double>(std::chrono::steady_clock::now() - t_kill).count()
                             << " s");
  auto small = gradebook(grades2);
  std::map<std::string, std::vector<std::string>> expected;
  for (const char* s : kSmallClass) expected[s] = book[s];
  CHECK_MESSAGE(small == expected, differing_rows(expected, small));
  // Nothing of the killed run is left: no checker, jail or runner naming its work folder.
  const std::string leftovers = "ps -eo args= | grep -F '" + (kRoot / "work2").string() + "' | grep -v grep";
  CHECK_MESSAGE(std::system(("! " + leftovers + " >/dev/null").c_str()) == 0, leftovers);

  // The GPU's schedule, run here on the CPU backend (--time-apart, --parallel-runs 2): the checks
  // of several students at once, then each correct kernel's timing run alone; and the GPU
  // grader's path for the checks only the emulator can judge (--emulator-verdicts always): each
  // file is built for the CPU backend a second time, once every build is done, and barriers is
  // taken from that run when it meets the checks' result. The same verdicts and points as the
  // checker's own, and the correct student went through a timing run of its own.
  const fs::path grades5 = kRoot / "grades-emulator";
  std::vector<std::string> emulator_run = grader_args(grades5, kRoot / "work5", "emulator");
  // --profile rides along (issue 31): the correct student's feedback gets "why is it slow",
  // estimated on the CPU backend, and the same points (the gradebook comparison below).
  emulator_run.insert(emulator_run.end(), {"--emulator-verdicts", "always", "--time-apart", "--parallel-runs", "2",
                                           "--timing-trace", "--profile"});
  REQUIRE(wait_for(start(emulator_run, kRoot / "run9.log")) == 0);
  const std::string run9 = read_file(kRoot / "run9.log").value_or("");
  CHECK_MESSAGE(run9.find("checks of 2 students at once") != std::string::npos, run9);
  // --timing-trace: each timing run's steps, under a line naming it (the CPU backend's stop
  // before the gate: it times nothing).
  const std::string trace = read_file(kRoot / "work5" / "timing-trace.log").value_or("");
  CHECK_MESSAGE(trace.find("== correct (timing)\ntiming trace: ") != std::string::npos, trace);
  CHECK_MESSAGE(trace.find("the runner and the CUDA contexts are up") != std::string::npos, trace);
  for (const char* s : kEmulatorClass) {
    CHECK_MESSAGE(gradebook(grades5)[s] == book[s], s);
    CHECK_MESSAGE(check_status(result(grades5, s), "barriers") == check_status(result(grades, s), "barriers"), s);
    CHECK_MESSAGE(check_status(result(grades5, s), "races") == check_status(result(grades, s), "races"), s);
    CHECK_MESSAGE(fs::exists(kRoot / "work5" / s / "bin" / "lab-cpu"), s << ": no CPU build beside the runner");
  }
  {
    const fs::path dir = grades5 / "lab1" / "students" / "correct";
    const std::string feedback = read_file(dir / "feedback.md").value_or("");
    CHECK_MESSAGE(feedback.find("## Why is it slow (estimated on the CPU backend, no points)") != std::string::npos,
                  feedback);
    CHECK_MESSAGE(feedback.find("reference") != std::string::npos, feedback);
    CHECK_MESSAGE(result(grades5, "correct")["profile_status"] == "made", result(grades5, "correct")["profile_text"]);
    CHECK(json::parse(*read_file(dir / "results.json"))["output"].get<std::string>().find("Why is it slow") !=
          std::string::npos);
    // Only a student whose checks all passed gets one.
    CHECK(read_file(grades5 / "lab1" / "students" / "barrier_in_if" / "feedback.md")
              .value_or("")
              .find("Why is it slow") == std::string::npos);
    CHECK_MESSAGE(run9.find("--profile: why it is slow") != std::string::npos, run9);
  }
  CHECK(result(grades5, "correct")["timing_status"] == "emulated");
  CHECK(result(grades5, "correct")["timing_note"].get<std::string>().find("emulated") != std::string::npos);
  CHECK(result(grades5, "barrier_in_if")["checks"].dump().find("judged by the CPU backend's emulator") !=
        std::string::npos);
  CHECK(result(grades5, "stub_as_handed_out")["reason"].get<std::string>().rfind("stub:", 0) == 0);

  // --shard K/N grades only its share and writes no class files; a run without it completes
  // the class (what a Slurm array and its final job do).
  const fs::path grades4 = kRoot / "grades-sharded";
  std::vector<std::string> shard0 = grader_args(grades4, kRoot / "work4", "small");
  shard0.insert(shard0.end(), {"--shard", "0/2"});
  REQUIRE(wait_for(start(shard0, kRoot / "run7.log")) == 0);
  size_t graded_in_share = 0;
  for (const char* s : kSmallClass) graded_in_share += fs::exists(grades4 / "lab1" / "students" / s / "result.json");
  CHECK(graded_in_share == 3);  // positions 0, 2 and 4 of the five, in name order
  CHECK_FALSE(fs::exists(grades4 / "lab1" / "gradebook.csv"));
  REQUIRE(wait_for(start(grader_args(grades4, kRoot / "work4", "small"), kRoot / "run8.log")) == 0);
  summary = json::parse(*read_file(grades4 / "lab1" / "summary.json"));
  CHECK(summary["resumed"] == 3);
  CHECK(summary["graded_this_run"] == 2);
  CHECK_MESSAGE(gradebook(grades4) == expected, differing_rows(expected, gradebook(grades4)));
  std::error_code ec;
  fs::remove_all(kRoot, ec);
}
