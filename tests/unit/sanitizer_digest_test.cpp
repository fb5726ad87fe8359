#include <doctest/doctest.h>

#include "checker/calls/sanitizer_digest.h"

using namespace cudalab;

// Trimmed from what the CPU backend's race runner printed for lab 2 with the barrier of its
// tree loop left out (the frames in between are the emulator's and the C++ library's).
static const char* kRace = R"(==================
WARNING: ThreadSanitizer: data race (pid=32435)
  Write of size 4 at 0x7ff450d1d4d4 by thread T2:
    #0 shared_sum_kernel(float const*, float*, unsigned long) /tmp/nobar/lab2.cu:116 (runner-race+0x4417)
    #1 operator()<float const*&, float*&, long unsigned int&> /tmp/nobar/lab2.cu:126 (runner-race+0x4480)
    #6 operator() harness/runner/emulator/include/cuda_runtime.h:285 (runner-race+0x4480)
    #9 runner_loop harness/runner/emulator/emulator.cpp:432 (runner-race+0x28014)

  Previous read of size 4 at 0x7ff450d1d4d4 by thread T1:
    #0 shared_sum_kernel(float const*, float*, unsigned long) /tmp/nobar/lab2.cu:114 (runner-race+0x4417)
    #9 runner_loop harness/runner/emulator/emulator.cpp:432 (runner-race+0x28014)

  Location is TLS of main thread.

  Thread T2 'CUDA thread (1,0,0) or another 97-th after it' (tid=0, running) created by main thread at:
    #0 runner_loop harness/runner/emulator/emulator.cpp:421 (runner-race+0x281b1)

  Thread T1 'CUDA thread (0,0,0)' (tid=0, running) created by main thread at:
    #0 runner_loop harness/runner/emulator/emulator.cpp:421 (runner-race+0x281b1)

SUMMARY: ThreadSanitizer: data race /tmp/nobar/lab2.cu:116 in shared_sum_kernel(float const*, float*, unsigned long)
==================
)";

TEST_CASE("sanitizer digest: a ThreadSanitizer race names the lines, the threads and the memory") {
  auto f = digest_sanitizer_reports(kRace);
  REQUIRE(f.size() == 1);
  CHECK(f[0].reports == 1);
  CHECK(f[0].text ==
        "ThreadSanitizer: a data race in shared memory: thread (1,0,0) of a block writes 4 bytes at lab2.cu:116 "
        "(shared_sum_kernel) that thread (0,0,0) of a block read at lab2.cu:114 (shared_sum_kernel), with no "
        "__syncthreads() between the two");
  // The same race reported again (another pair of threads): one finding, counted.
  f = digest_sanitizer_reports(std::string(kRace) + kRace + kRace);
  REQUIRE(f.size() == 1);
  CHECK(f[0].reports == 3);
}

TEST_CASE("sanitizer digest: UBSan's bounds check names the line, the index and the function") {
  auto f = digest_sanitizer_reports(
      "tests/emulator/fixtures/static_shared_oob.cu:11:9: runtime error: "
      "index 128 out of bounds for type 'float [128]'\n"
      "    #0 0x55c58f8e2862 in stage(float const*, float*) tests/emulator/fixtures/static_shared_oob.cu:11\n");
  REQUIRE(f.size() == 1);
  CHECK(
      f[0].text ==
      "UndefinedBehaviorSanitizer: index 128 out of bounds for type 'float [128]' at static_shared_oob.cu:11 (stage)");
}

TEST_CASE("sanitizer digest: what the runner wrote is untrusted: control bytes never pass, nothing else is a finding") {
  CHECK(digest_sanitizer_reports("hello\nSUMMARY: nothing\n").empty());
  std::string evil = kRace;
  evil.replace(evil.find("shared_sum_kernel"), 17, "k\x1b[2J");
  auto f = digest_sanitizer_reports(evil);
  REQUIRE(f.size() == 1);
  CHECK(f[0].text.find('\x1b') == std::string::npos);
}

TEST_CASE("sanitizer digest: the runner's environment keeps the user's options and adds the log path") {
  setenv("TSAN_OPTIONS", "halt_on_error=1", 1);
  auto env = sanitizer_log_env("/tmp/r");
  unsetenv("TSAN_OPTIONS");
  CHECK(env[0] == "TSAN_OPTIONS=halt_on_error=1:log_path=/tmp/r/report");
  CHECK(env[1] == "ASAN_OPTIONS=log_path=/tmp/r/report");
}
