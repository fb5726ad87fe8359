// How far the checker's own clock bounds the time the kernel runner reports (timed_call.h).
//
// CUDA events must be recorded in the process that launches, so the runner times the lab and
// its report is its word: a lab file able to change it (its own cudaEventElapsedTime, before
// the link contract refused that) could report any number. The checker holds that number to
// its own clock, CLOCK_MONOTONIC, read just before it sends "go" and just after "done" arrives.
// Between the two the runner does nothing but the lab's calls: a batch of R of them back to back,
// each on buffers of its own made before "go" (fresh inputs, poisoned outputs, the L2 flushed
// after them), between two events. So, for a batch,
//
//     wall = (the calls' real time) + (a fixed cost: waking the runner, recording the events,
//                                       the reply, waking the checker)
//
// and a report below (wall - kOverheadMs) * kLeastFraction is below the calls' real time (less
// a few percent): refused. R is chosen so that a batch lasts kTargetBatchMs on the checker's
// clock (memory allowing), so the fixed cost, whatever it really is up to kOverheadMs, is at
// most about 1% of the batch: at every timed size, a sub-millisecond kernel included, a reported
// time more than about 4% below the real one is refused. A report above the clock is refused too.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace cudalab {

struct TimeBound {
  // What a batch may take on the checker's clock besides its calls (measured on an H100: about
  // 0.03-0.1 ms; allowed generously, it costs at most this over the whole batch).
  double overhead_ms = 0.25;
  // The report must be at least this fraction of the clock's time per call (less overhead):
  // what the events miss of a call's own time (their resolution, the first launch's latency).
  double least_fraction = 0.97;
  // Events never see more than the clock: a report above wall * (1 + slack) + slack_ms is refused.
  double clock_slack = 0.005, clock_slack_ms = 0.02;
  // How long a batch should take on the checker's clock, and the most calls one may make.
  double target_batch_ms = 20;
  int max_reps = 8192;
};

struct BatchTime {
  int reps = 0;  // R: calls of the lab in the batch
  double reported_ms = 0;  // the runner's events around all R calls (its word)
  double wall_ms = 0;  // the checker's clock, "go" to "done"
};

struct BoundVerdict {
  bool ok = false;
  std::string problem;  // why the time is refused ("" when ok)
  double per_call_ms = 0;  // the student's time: the median batch's reported time per call
  double clock_per_call_ms = 0;  // the checker's clock per call, overhead taken off (median batch)
  double least_ms = 0;  // the least time per call the clock allows
};

// Judges the timed batches (warm-ups left out) against the checker's clock.
BoundVerdict judge_batches(const std::vector<BatchTime>& batches, const TimeBound& bound = {});

// The time per call a batch shows on the checker's clock, overhead taken off (never below 0).
double clock_per_call_ms(const BatchTime& b, const TimeBound& bound = {});

// How many calls a batch makes: enough to last bound.target_batch_ms at est_ms per call, no more
// than budget_bytes of GPU memory holds (set_bytes per call: every buffer with its guards), and
// no more than bound.max_reps; at least 1.
int batch_reps(double est_ms, uint64_t set_bytes, uint64_t budget_bytes, const TimeBound& bound = {});

// Which of a batch's calls are checked, drawn after it ran: the first, the last and `others` more
// at random (every call when that is all of them).
std::vector<bool> calls_to_check(size_t reps, size_t others, std::mt19937_64& draw);

}  // namespace cudalab
