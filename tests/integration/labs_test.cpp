// Runs every reference solution and every student stub through the harness, on the
// backend the build chose, and checks the verdicts: each solution passes every check,
// each stub fails every check with a message (and never crashes or hangs). (The planted bugs of
// tests/fixtures are run by tests/planted/run.py, as every folder of planted files is.) The stubs are the
// kit as shipped (build/<backend>/shipped/labN-runner, built from the repository's last commit
// of labs/), never the student's working copy: a finished lab in labs/ changes nothing here.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string g_build_dir;  // build/cuda or build/cpu
// CUDALAB_TEST_SHARD=K/N: this process runs every N-th item (a solution, a stub) from
// the K-th, so that make runs N of them side by side: one after another, the labs' checks were
// the longest part of make test, on one core.
int g_shard = 0, g_shards = 1;
int g_item = 0;  // items seen so far, over every test case, in order
bool my_item() { return g_item++ % g_shards == g_shard; }

struct Run {
  int exit_status = -1;
  nlohmann::json report;
};

// Runs lab `lab`'s checker with the given kernel runner, its timing left out.
Run run_binary(const std::string& runner, int lab) {
  const std::string binary = g_build_dir + "/check/lab" + std::to_string(lab) + " --runner " + runner;
  std::string flat = runner;
  for (auto& c : flat)
    if (c == '/') c = '_';
  std::string json_path = g_build_dir + "/test-reports/" + flat + "." + std::to_string(g_shard) + ".json";
  std::system(("mkdir -p " + g_build_dir + "/test-reports").c_str());
  // A hang would stop the suite: every run gets a wall-clock limit.
  std::string cmd = "timeout 300 " + binary + " --no-timing --seed " + std::to_string(1000 + lab) + " --json " +
                    json_path + " > " + json_path + ".log 2>&1";
  int raw = std::system(cmd.c_str());
  Run r;
  r.exit_status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  std::ifstream f(json_path);
  if (f) r.report = nlohmann::json::parse(f, nullptr, false);
  return r;
}

bool have_binary(const std::string& path) { return std::ifstream(path).good(); }

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
