// Timed batches through a real kernel runner on the CPU backend (which never times a lab itself:
// its timing is "emulated"): lab 4's solution and a planted bug, called as lab 4's timing calls
// them, with the output sampled (LabCall::sampled_output). The elements drawn after the batch
// ran come back, and only they; the last element is always among them; a wrong one fails the
// check, in a batch and in a whole timing (time_lab_calls: warm-ups, sizing, 5 timed batches);
// and a runner handed an index past the output's end stops talking (a ProtocolError).
//   CUDALAB_TEST_BUILD=build/cpu build/tests/timed_batch_test   (make test-timed-batch)
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "checker/calls/lab_call.h"
#include "checker/calls/runner_process.h"
#include "checker/calls/runner_session.h"
#include "checker/judging/matrix_reference.h"
#include "checker/timing/timed_batch.h"
#include "checker/timing/timed_call.h"
#include "lab_specs/lab4/call.h"
#include "wire/fill.h"
#include "wire/protocol.h"

using namespace cudalab;

namespace {

std::string build_dir() {
  const char* b = std::getenv("CUDALAB_TEST_BUILD");
  return b ? b : "build/cpu";
}

RunnerConfig config_for(const std::string& program) {
  RunnerConfig c;
  c.program = build_dir() + "/" + program;
  c.timeout_seconds = 120;
  return c;
}

wire::Fill input_fill(uint64_t seed) { return wire::uniform_fill(seed, 1, 1.0f, 2.0f); }

// A call as lab 4's timing makes it (lab_specs/lab4/timing.cpp), at a size the emulator runs quickly.
LabCall transpose_call(size_t rows, size_t cols, uint64_t seed) {
  LabCall call(lab4_call::kCall);
  call.random_input(lab4_call::kIn, rows * cols, input_fill(seed));
  call.sampled_output(lab4_call::kOut, rows * cols, 4096);
  call.scalar(lab4_call::kRows, int64_t(rows));
  call.scalar(lab4_call::kCols, int64_t(cols));
  return call;
}

// A batch of `reps` such calls in `program`, every call checked.
TimedBatch transpose_batch(const std::string& program, size_t rows, size_t cols, int reps,
                           std::vector<LabCall>& calls) {
  RunnerSession runner(config_for(program), 4);
  for (int i = 0; i < reps; ++i) calls.push_back(transpose_call(rows, cols, 40 + uint64_t(i)));
  TimedBatch b = run_timed_batch(runner, calls, [](size_t n) { return std::vector<bool>(n, true); });
  runner.finish();
  return b;
}

// 1,025 x 320: an output of 1.25 MiB (gathered, above kWholeOutputBytes) whose last input row is a
// partial tile of one row: a grid that rounds down leaves 320 of its 328,000 elements unwritten.
constexpr size_t kRows = 1025, kCols = 320, kN = kRows * kCols;

}  // namespace

TEST_CASE("a timed batch brings back the 4,096 drawn elements of a large output, the last first, and they check") {
  std::vector<LabCall> calls;
  const TimedBatch b = transpose_batch("solutions/lab4-runner", kRows, kCols, 2, calls);
  REQUIRE(b.results.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    REQUIRE(b.results[i]);
    const LabCallResult& res = *b.results[i];
    CHECK(res.data.at(1).empty());  // gathered: the rest of the output never crossed
    REQUIRE(res.samples.at(1).size() == 4096);
    CHECK(res.samples[1].front().index == kN - 1);
    CHECK(res.guards.at(1).overwritten == 0);
    CHECK(check_transpose_samples(res.samples[1], input_fill(40 + i), kRows, kCols) == "");
  }
  // Drawn afresh for every call: the two calls' elements differ.
  CHECK(b.results[0]->samples[1][1].index != b.results[1]->samples[1][1].index);
}

TEST_CASE("a grid that rounds down fails the check on the last element, which is always drawn") {
  std::vector<LabCall> calls;
  const TimedBatch b = transpose_batch("fixtures/lab4_grid_round_down", kRows, kCols, 1, calls);
  REQUIRE(b.results.at(0));
  const std::string wrong = check_transpose_samples(b.results[0]->samples.at(1), input_fill(40), kRows, kCols);
  // Still the harness's poison (a NaN): never written.
  CHECK_MESSAGE(wrong.rfind("element [319][1,024] of the output is -nan,", 0) == 0, wrong);
}

TEST_CASE("a small sampled output comes back whole, every element of it a sample") {
  std::vector<LabCall> calls;
  const TimedBatch b = transpose_batch("solutions/lab4-runner", 40, 30, 1, calls);
  REQUIRE(b.results.at(0));
  const LabCallResult& res = *b.results[0];
  CHECK(res.data.at(1).size() == 1200 * sizeof(float));
  CHECK(res.samples.at(1).size() == 1200);
  CHECK(check_transpose_samples(res.samples[1], input_fill(40), 40, 30) == "");
}

TEST_CASE("a runner handed an index past the output's end refuses the hand-back and ends the conversation") {
  RunnerProcess rp(config_for("solutions/lab4-runner"));
  LabCall call = transpose_call(kRows, kCols, 7);
  wire::CallRequest q = call.request();
  q.lab = 4;
  q.sync_after_launch = false;
  q.buffers[1].samples = 4096;
  q.buffers[1].slot_offset = (wire::slot_bytes(q.buffers[0]) + 63) & ~uint64_t(63);
  q.shm_bytes = q.buffers[1].slot_offset + wire::slot_bytes(q.buffers[1]);
  const int fd = memfd_create("timed-batch-test", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(ftruncate(fd, off_t(q.shm_bytes)) == 0);
  wire::Writer w;
  wire::encode_batch(w, {q});
  wire::send_frame(rp.socket(), wire::MessageType::TimedRep, w.bytes(), fd);
  close(fd);
  wire::Frame f;
  REQUIRE(wire::receive_frame(rp.socket(), f, rp.timeout_ms()));
  REQUIRE(f.type == wire::MessageType::RepReady);
  wire::send_frame(rp.socket(), wire::MessageType::Go, "");
  REQUIRE(wire::receive_frame(rp.socket(), f, rp.timeout_ms()));
  REQUIRE(f.type == wire::MessageType::RepStopped);
  REQUIRE(wire::receive_frame(rp.socket(), f, rp.timeout_ms()));
  REQUIRE(f.type == wire::MessageType::RepDone);
  wire::HandBack h;
  h.calls = {1};
  h.indices = {{std::vector<uint64_t>(4096, kN - 1)}};
  h.indices[0][0][4095] = kN;  // one past the end
  wire::Writer hw;
  wire::encode(hw, h);
  wire::send_frame(rp.socket(), wire::MessageType::Go, hw.bytes());
  CHECK_THROWS_AS(wire::receive_frame(rp.socket(), f, rp.timeout_ms()), wire::ProtocolError);
  CHECK(rp.stop() == "exited with status 0");
}

namespace {

// A whole timing of lab 4 at kRows x kCols in `program`, as lab_specs/lab4/timing.cpp runs it. The bound's
// allowance is widened: an emulated call's events are the runner's wall clock, and on a loaded
// machine waking a process can take longer than a GPU's 0.25 ms; what is tested here is the
// sequence of batches and the checking, not the bound (tests/unit/timing_bound_test.cpp).
StudentTiming transpose_timing(const std::string& program) {
  RunnerSession runner(config_for(program), 4);
  StudentTimingConfig cfg;
  cfg.memory_budget_bytes = uint64_t(64) << 20;
  cfg.bound.overhead_ms = 100;
  const StudentTiming t = time_lab_calls(
      runner, [](int rep) { return transpose_call(kRows, kCols, 100 + uint64_t(rep)); },
      [](int rep, const LabCall&, const LabCallResult& res) {
        return check_transpose_samples(res.samples.at(1), input_fill(100 + uint64_t(rep)), kRows, kCols);
      },
      cfg);
  runner.finish();
  return t;
}

}  // namespace

TEST_CASE("a whole timing of the solution is believed, in 5 timed batches, every checked call on drawn elements") {
  const StudentTiming t = transpose_timing("solutions/lab4-runner");
  CHECK_MESSAGE(t.ok, t.problem);
  CHECK(t.batches == 5);
  CHECK(t.all_ms.size() == 5);
  CHECK(t.reps >= 1);
  MESSAGE("the solution: " << t.method() << ", " << t.median_ms << " ms per call");
}

TEST_CASE("a whole timing of the planted bug stops at its first call, on the element that is always drawn") {
  const StudentTiming t = transpose_timing("fixtures/lab4_grid_round_down");
  CHECK_FALSE(t.ok);
  CHECK(t.wrong_answer);
  CHECK_MESSAGE(t.problem.rfind("element [319][1,024] of the output is", 0) == 0, t.problem);
  CHECK_MESSAGE(t.problem.find("(timed call 1, ") != std::string::npos, t.problem);
}
