// Timing on the GPU: CUDA events around the work, warm-ups first, the median of repeats,
// and the L2 cache flushed before every repeat so no run finds its inputs already cached.
#pragma once
#include <functional>
#include <vector>

#include "checker/calls/runner_session.h"

namespace cudalab {

struct TimerConfig {
  int warmups = 3;
  int repeats = 20;
  bool flush_l2 = true;
};

struct Timing {
  double median_ms = 0;
  double spread = 0;  // (max - min) / median over the repeats
  std::vector<double> all_ms;
};

// Times `work` (which enqueues GPU work on the default stream). `prepare`, if given, runs
// before each repeat outside the timed region (restoring an input consumed in place, say).
// The checker's own timings: they refuse to run while a kernel runner (the student's code) is
// alive in `runner` (RunnerSession::end_student_processes() first).
Timing time_gpu(const RunnerSession& runner, const std::function<void()>& work, const TimerConfig& cfg = {},
                const std::function<void()>& prepare = nullptr);

// Times a host function with a steady clock: the median of `repeats` after one warm-up, or the
// first run alone when it took kLongHostRunMs or more (the caller has made its data already).
inline constexpr double kLongHostRunMs = 100;
Timing time_host(const RunnerSession& runner, const std::function<void()>& work, int repeats = 5);

// Makes this process's CUDA context now (the runtime makes it on the first call otherwise): the
// checker's own references run on the GPU during a timing, and a context made there would take
// a fifth of a second of the GPU's gate.
void make_gpu_context();

// Evicts the L2 cache by writing a buffer twice its size.
void flush_l2();

}  // namespace cudalab
