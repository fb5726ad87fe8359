// The checker's clock against the runner's report (checker/timing/timing_bound.h): what is refused, what
// an honest run gets through, at every timed size, sub-millisecond kernels included.
#include <doctest/doctest.h>

#include <random>

#include "checker/timing/timing_bound.h"

using namespace cudalab;

namespace {

// A batch as an honest runner produces it: R calls of real_ms each, the events seeing exactly
// them, the checker's clock seeing them plus overhead_ms.
BatchTime honest(int reps, double real_ms, double overhead_ms) {
  return {reps, reps * real_ms, reps * real_ms + overhead_ms};
}
// The same batch, the runner reporting `fraction` of the real time.
BatchTime lying(int reps, double real_ms, double overhead_ms, double fraction) {
  BatchTime b = honest(reps, real_ms, overhead_ms);
  b.reported_ms *= fraction;
  return b;
}
std::vector<BatchTime> five(const BatchTime& b) { return std::vector<BatchTime>(5, b); }

// The reps the checker would choose for a kernel of real_ms per call, with memory for all.
int reps_for(double real_ms) { return batch_reps(real_ms, 1, uint64_t(1) << 40); }

}  // namespace

TEST_CASE("an honest runner's time is accepted, from 5 microseconds to 50 ms a call") {
  for (double real : {0.005, 0.02, 0.1, 0.35, 1.0, 3.0, 12.0, 50.0}) {
    CAPTURE(real);
    const int r = reps_for(real);
    for (double overhead : {0.02, 0.1, 0.25, 0.6}) {
      CAPTURE(overhead);
      const BoundVerdict v = judge_batches(five(honest(r, real, overhead)));
      CHECK(v.ok);
      CHECK(v.per_call_ms == doctest::Approx(real));
    }
  }
}

TEST_CASE("a time more than about 4% below the real one is refused at every timed size") {
  // The case: lab 3's reference takes about 0.1 ms on an H100; the old bound (half the
  // wall clock, less 0.5 ms) let any report through below a millisecond.
  for (double real : {0.005, 0.02, 0.1, 0.35, 1.0, 3.0, 12.0, 50.0}) {
    CAPTURE(real);
    const int r = reps_for(real);
    for (double overhead : {0.0, 0.05, 0.25}) {
      CAPTURE(overhead);
      for (double fraction : {0.95, 0.9, 0.75, 0.5, 0.1, 0.001, 0.0}) {
        CAPTURE(fraction);
        const BoundVerdict v = judge_batches(five(lying(r, real, overhead, fraction)));
        CHECK_FALSE(v.ok);
        CHECK(v.problem.find("below what the checker's own clock allows") != std::string::npos);
      }
    }
  }
}

TEST_CASE("what the bound tolerates: 3% and the overhead allowance spread over the batch") {
  const TimeBound bound;
  // 0.1 ms calls, 200 of them: 20 ms. A runner with no overhead at all may shave at most
  // 3% plus 0.25 ms / 20 ms.
  const double real = 0.1;
  const int r = reps_for(real);
  CHECK(r == 200);
  const double tolerated = 1 - bound.least_fraction * (1 - bound.overhead_ms / (r * real));
  CHECK(tolerated < 0.045);
  CHECK(judge_batches(five(lying(r, real, 0, 1 - tolerated + 0.002))).ok);
  CHECK_FALSE(judge_batches(five(lying(r, real, 0, 1 - tolerated - 0.002))).ok);
}

TEST_CASE("memory that caps the batch loosens the bound, and it says so in the numbers") {
  // 256 MiB a call and 40 GiB for all: 160 calls of 0.1 ms, 16 ms a batch.
  const int r = batch_reps(0.1, uint64_t(256) << 20, uint64_t(40) << 30);
  CHECK(r == 160);
  CHECK_FALSE(judge_batches(five(lying(r, 0.1, 0.05, 0.95))).ok);
  CHECK(judge_batches(five(honest(r, 0.1, 0.5))).ok);
}

TEST_CASE("a report above the checker's clock is refused") {
  BatchTime b = honest(100, 0.2, 0.05);
  b.reported_ms = b.wall_ms * 1.02;
  const BoundVerdict v = judge_batches(five(b));
  CHECK_FALSE(v.ok);
  CHECK(v.problem.find("more time than") != std::string::npos);
  b.reported_ms = -1;
  CHECK_FALSE(judge_batches(five(b)).ok);
  b.reported_ms = std::nan("");
  CHECK_FALSE(judge_batches(five(b)).ok);
  CHECK_FALSE(judge_batches({}).ok);
}

TEST_CASE("the median batch counts: one slow batch does not refuse an honest run, one lie does not pass") {
  std::vector<BatchTime> runs = five(honest(200, 0.1, 0.1));
  runs[2].wall_ms += 5;  // the machine was busy for a moment
  CHECK(judge_batches(runs).ok);
  // Two batches reporting nearly nothing do not lower the time: the median is an honest batch.
  runs = five(honest(200, 0.1, 0.1));
  runs[0].reported_ms = runs[1].reported_ms = 0.001;
  const BoundVerdict v = judge_batches(runs);
  CHECK(v.ok);
  CHECK(v.per_call_ms == doctest::Approx(0.1));
  // Three do, and are refused.
  runs[2].reported_ms = 0.001;
  CHECK_FALSE(judge_batches(runs).ok);
}

TEST_CASE("a batch lasts about 20 ms on the checker's clock, memory and the call count allowing") {
  CHECK(batch_reps(0.1, 1, uint64_t(1) << 40) == 200);
  CHECK(batch_reps(3.0, 1, uint64_t(1) << 40) == 7);
  CHECK(batch_reps(50.0, 1, uint64_t(1) << 40) == 1);
  CHECK(batch_reps(0.0, 1, uint64_t(1) << 40) == 8192);  // the most calls a batch makes
  CHECK(batch_reps(-1.0, 1, uint64_t(1) << 40) == 8192);
  CHECK(batch_reps(0.1, uint64_t(1) << 30, uint64_t(8) << 30) == 8);  // memory for 8
  CHECK(batch_reps(0.1, uint64_t(1) << 30, uint64_t(1) << 20) == 1);  // never none
  CHECK(clock_per_call_ms({10, 0, 0.1}) == 0);  // overhead only: 0, never below
  CHECK(clock_per_call_ms({10, 0, 10.25}) == doctest::Approx(1.0));
}

TEST_CASE("which calls of a batch are checked: the first, the last, and others drawn") {
  std::mt19937_64 draw(7);
  const std::vector<bool> c = calls_to_check(200, 3, draw);
  CHECK(c.size() == 200);
  CHECK(c.front());
  CHECK(c.back());
  size_t n = 0;
  for (bool b : c) n += b;
  CHECK(n == 5);
  CHECK(calls_to_check(4, 3, draw) == std::vector<bool>(4, true));
  CHECK(calls_to_check(1, 1, draw) == std::vector<bool>(1, true));
  CHECK(calls_to_check(0, 1, draw).empty());
  // Over many draws every inner call is checked now and then: none is safe to skip.
  std::vector<int> seen(50, 0);
  for (int k = 0; k < 2000; ++k) {
    const auto d = calls_to_check(50, 2, draw);
    for (size_t i = 0; i < d.size(); ++i) seen[i] += d[i];
  }
  for (int s : seen) CHECK(s > 0);
}
