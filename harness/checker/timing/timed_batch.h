// A timed batch of the lab's calls, run back to back in the kernel runner between its two CUDA
// events (timed_call.h builds the timing from batches). Its exchange with the runner is a check's
// (checker/calls/runner_exchange.h), with a "go" the checker's own clock times.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "checker/calls/lab_call.h"
#include "checker/calls/runner_session.h"

namespace cudalab {

// The calls run back to back in the runner, between its two CUDA
// events, each on buffers of its own; check(n), asked only after the batch ran, says which
// calls' outputs come back, and the elements of their sampled outputs are drawn then too, from
// a generator the runner cannot see. At most wire::kMaxBatchSamples elements are drawn in all.
// Throws LabCallFailure as run() does (Kind::OutOfMemory when the runner could not make all the
// calls' buffers).
struct TimedBatch {
  double ms = 0;  // the runner's events around all the calls (its word)
  double wall_ms = 0;  // the checker's own clock, from "go" to "done"
  double prepare_ms = 0;  // the checker's clock: the batch sent until the runner was ready
  double hand_back_ms = 0;  // the checker's clock: "done" until the checked outputs were back
  double startup_wait_ms = 0;  // ready until "go": another run's start-up waited out (gpu_gate.h)
  uint32_t threads_left = 0;  // host threads the lab's code left running (the runner's count)
  std::vector<std::optional<LabCallResult>> results;  // per call: its outputs, when checked
};
// `measured`: the batch's time counts (a timed batch, or one that sizes them), so it runs in a
// MeasuredSpan (gpu_gate.h); a warm-up's only estimates the batch size, and waits for nothing.
TimedBatch run_timed_batch(RunnerSession& session, std::vector<LabCall>& calls,
                           const std::function<std::vector<bool>(size_t)>& check, bool measured = true);

}  // namespace cudalab
