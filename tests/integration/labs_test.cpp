// Runs every reference solution and every student stub through the harness, on the
// backend the build chose, and checks the verdicts: each solution passes every check,
// each stub fails every check with a message (and never crashes or hangs). The stubs are the
// kit as shipped (build/<backend>/shipped/labN-runner, built from the repository's last commit
// of labs/), never the student's working copy: a finished lab in labs/ changes nothing here.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string g_build_dir;  // build/cuda or build/cpu
// CUDALAB_TEST_SHARD=K/N: this process runs every N-th item (a solution, a stub, a fixture) from
// the K-th, so that make runs N of them side by side: one after another, the labs' checks were
// the longest part of make test, on one core.
int g_shard = 0, g_shards = 1;
int g_item = 0;  // items seen so far, over every test case, in order
bool my_item() { return g_item++ % g_shards == g_shard; }

struct Run {
  int exit_status = -1;
  nlohmann::json report;
  std::string text;  // the JSON report as written
};

// Runs lab `lab`'s checker with the given kernel runner (and extra options, as a grader gives them).
Run run_binary(const std::string& runner, int lab, bool timed = false, const std::string& args = "") {
  const std::string binary = g_build_dir + "/check/lab" + std::to_string(lab) + " --runner " + runner;
  std::string flat = runner;
  for (auto& c : flat)
    if (c == '/') c = '_';
  // (per shard: another shard may run the same runner, as grader_check_limit does)
  std::string json_path = g_build_dir + "/test-reports/" + flat + "." + std::to_string(g_shard) + ".json";
  std::system(("mkdir -p " + g_build_dir + "/test-reports").c_str());
  // A hang would stop the suite: every run gets a wall-clock limit.
  std::string cmd = "timeout 300 " + binary + (timed ? "" : " --no-timing") + " --seed " + std::to_string(1000 + lab) +
                    " --json " + json_path + (args.empty() ? "" : " " + args) + " > " + json_path + ".log 2>&1";
  int raw = std::system(cmd.c_str());
  Run r;
  r.exit_status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  std::ifstream f(json_path);
  if (f) r.report = nlohmann::json::parse(f, nullptr, false);
  std::ifstream text(json_path);
  r.text.assign(std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>());
  return r;
}

bool have_binary(const std::string& path) { return std::ifstream(path).good(); }

// The per-check limit the grader sets from the reference solution's own run: 10 s plus 3 times
// that run's length (grading/grader/grader.cpp), the reference measured here, once per lab.
int grader_check_limit(int lab) {
  static std::map<int, int> limits;
  if (!limits.count(lab)) {
    const auto start = std::chrono::steady_clock::now();
    run_binary(g_build_dir + "/solutions/lab" + std::to_string(lab) + "-runner", lab);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    limits[lab] = int(10 + 3 * seconds + 0.5);
  }
  return limits[lab];
}

// Whether lab N's stub is part of the kit as shipped (make exported it to build/shipped/labs/).
bool shipped(int lab) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("build/shipped/labs", ec))
    if (e.path().filename().string().rfind("lab" + std::to_string(lab) + "_", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("every reference solution passes every check") {
  for (int lab = 1; lab <= 9; ++lab) {
    if (!my_item()) continue;
    CAPTURE(lab);
    std::string bin = g_build_dir + "/solutions/lab" + std::to_string(lab) + "-runner";
    REQUIRE(have_binary(bin));
    Run r = run_binary(bin, lab);
    CHECK(r.exit_status == 0);
    REQUIRE(r.report.is_object());
    CHECK(r.report["lab"] == lab);
    CHECK(r.report["checks"].size() > 0);
    for (const auto& c : r.report["checks"]) {
      CAPTURE(c.dump());
      CHECK((c["status"] == "pass" || c["status"] == "skipped"));
    }
    CHECK(r.report["summary"]["passed"].get<int>() > 0);
  }
}

TEST_CASE("every stub fails every check, with a message, without crashing") {
  for (int lab = 1; lab <= 9; ++lab) {
    if (!my_item()) continue;
    CAPTURE(lab);
    std::string bin = g_build_dir + "/shipped/lab" + std::to_string(lab) + "-runner";
    if (!shipped(lab)) {
      MESSAGE("lab " << lab << " is not in the repository's last commit: no shipped stub to test");
      continue;
    }
    REQUIRE(have_binary(bin));
    Run r = run_binary(bin, lab);
    CHECK(r.exit_status == 1);  // a failed check; not a crash (>= 128), not a lost context (3)
    REQUIRE(r.report.is_object());
    for (const auto& c : r.report["checks"]) {
      CAPTURE(c.dump());
      if (c["status"] == "skipped" || c["id"] == "barriers") continue;  // a stub has no barrier to diverge at
      CHECK(c["status"] == "fail");
      CHECK(c["message"].get<std::string>().size() > 10);
    }
  }
}

namespace {
// The expectations a fixture states in its own comments ("// expect-exit: 3").
struct Expectation {
  int exit_status = -1;
  std::string message;
  // Where the message must appear: a GPU shows some bugs (a missing barrier) only by chance, so a
  // fixture may ask for its words on the CPU backend alone and for a failed check everywhere.
  std::string message_backends = "cuda cpu";
  std::string cause;  // the cause some failing check must report ("past_array_end"): what the grader acts on
  bool not_run = false;
  std::string timing;  // a timing status expected (the fixture then runs with timing)
  std::string backends = "cuda cpu";
  std::string args;  // more options for the checker ("--hidden-checks ID": as the grader runs it)
  bool grader_limit = false;  // run with the grader's per-check limit ("// check-limit: grader")
  std::vector<std::string> absent;  // text the JSON report must not hold anywhere
  std::vector<std::string> absent_visible;  // text no visible check's message or notes may hold
};
Expectation read_expectation(const std::string& source) {
  Expectation e;
  std::ifstream f(source);
  std::string line;
  auto value = [&](const char* key) -> std::optional<std::string> {
    auto at = line.find(key);
    if (at == std::string::npos) return std::nullopt;
    return line.substr(at + std::strlen(key));
  };
  while (std::getline(f, line)) {
    if (auto v = value("// expect-exit: ")) e.exit_status = std::stoi(*v);
    if (auto v = value("// expect-message: ")) e.message = *v;
    if (auto v = value("// expect-message-backends: ")) e.message_backends = *v;
    if (auto v = value("// expect-cause: ")) e.cause = *v;
    if (auto v = value("// expect-not-run: ")) e.not_run = *v == "yes";
    if (auto v = value("// backends: ")) e.backends = *v;
    if (auto v = value("// expect-timing: ")) e.timing = *v;
    if (auto v = value("// args: ")) e.args = *v;
    if (auto v = value("// check-limit: ")) e.grader_limit = *v == "grader";
    if (auto v = value("// expect-absent: ")) e.absent.push_back(*v);
    if (auto v = value("// expect-absent-visible: ")) e.absent_visible.push_back(*v);
  }
  return e;
}
}  // namespace

TEST_CASE("planted bugs get the verdict and message their fixture states") {
  const char* backend = std::getenv("CUDALAB_TEST_BACKEND");
  std::string list = g_build_dir + "/fixtures/list.txt";
  std::ifstream names(list);
  REQUIRE_MESSAGE(names.good(), "no fixture list at " << list);
  std::string source;
  int count = 0;
  while (std::getline(names, source)) {
    if (!my_item()) continue;
    Expectation e = read_expectation(source);
    if (e.backends.find(backend) == std::string::npos) continue;
    CAPTURE(source);
    std::string name = source.substr(source.rfind('/') + 1);
    name = name.substr(0, name.size() - 3);
    const int lab = std::stoi(name.substr(3, 1));
    if (e.grader_limit) e.args += " --check-timeout " + std::to_string(grader_check_limit(lab));
    CAPTURE(e.args);
    Run r = run_binary(g_build_dir + "/fixtures/" + name, lab, !e.timing.empty(), e.args);
    ++count;
    CHECK(r.exit_status == e.exit_status);
    REQUIRE(r.report.is_object());
    bool found = false, any_not_run = false, cause_found = e.cause.empty();
    for (const auto& c : r.report["checks"]) {
      cause_found |= c["cause"] == e.cause;
      found |= c["message"].get<std::string>().find(e.message) != std::string::npos;
      for (const auto& n : c["notes"]) found |= n.get<std::string>().find(e.message) != std::string::npos;
      // The runner's own words (the CPU backend's account of a fault): shown where no check is hidden.
      if (c.contains("runner_words"))
        for (const auto& n : c["runner_words"]) found |= n.get<std::string>().find(e.message) != std::string::npos;
      any_not_run |= c["status"] == "not_run";
    }
    if (!e.timing.empty()) {
      // A bug only the timed run shows: the checks pass, and the timing refuses the time.
      CHECK(r.report["timing"]["status"] == e.timing);
      found |= r.report["timing"]["note"].get<std::string>().find(e.message) != std::string::npos;
    } else if (e.exit_status == 0) {
      // Not a bug: a correct lab done another way, every check passed within the limits.
      for (const auto& c : r.report["checks"]) {
        CAPTURE(c.dump());
        CHECK((c["status"] == "pass" || c["status"] == "skipped"));
      }
    } else {
      CHECK(r.report["summary"]["passed"].get<int>() < r.report["summary"]["total"].get<int>());
    }
    if (e.message_backends.find(backend) != std::string::npos)
      CHECK_MESSAGE(found, "no check message contains '" << e.message << "'");
    CHECK_MESSAGE(cause_found, "no check reports the cause '" << e.cause << "'");
    if (e.not_run) CHECK(any_not_run);
    // What must not reach the report (issue 16: the runner's words, a hidden check's size).
    for (const auto& a : e.absent) CHECK_MESSAGE(r.text.find(a) == std::string::npos, "the report holds '" << a << "'");
    std::string hidden;  // ",id,id," as --hidden-checks names them
    if (const size_t at = e.args.find("--hidden-checks "); at != std::string::npos)
      hidden = "," + e.args.substr(at + 16, e.args.find(' ', at + 16) - (at + 16)) + ",";
    for (const auto& c : r.report["checks"]) {
      if (hidden.find("," + c["id"].get<std::string>() + ",") != std::string::npos) continue;
      const std::string words = c["message"].dump() + c["notes"].dump();
      for (const auto& a : e.absent_visible)
        CHECK_MESSAGE(words.find(a) == std::string::npos,
                      "visible check " << c["id"] << " says '" << a << "': " << words);
    }
  }
  CHECK(count > 0);  // (each shard gets some: there are many more fixtures than shards)
}

int main(int argc, char** argv) {
  const char* dir = std::getenv("CUDALAB_TEST_BUILD");
  g_build_dir = dir ? dir : "build/cuda";
  const char* backend = std::getenv("CUDALAB_TEST_BACKEND");
  std::string b = backend ? backend : "cuda";
  if (b == "none") {
    std::printf("SKIP  lab integration tests: no GPU (and no CPU backend to run the labs on)\n");
    return 0;
  }
  if (const char* shard = std::getenv("CUDALAB_TEST_SHARD")) {
    if (std::sscanf(shard, "%d/%d", &g_shard, &g_shards) != 2 || g_shards < 1 || g_shard < 0 || g_shard >= g_shards) {
      std::fprintf(stderr, "CUDALAB_TEST_SHARD=%s: expected K/N with 0 <= K < N (as make test-labs sets it)\n", shard);
      return 2;
    }
  }
  std::printf("lab integration tests on the %s backend (%s), part %d of %d\n", b.c_str(), g_build_dir.c_str(),
              g_shard + 1, g_shards);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
