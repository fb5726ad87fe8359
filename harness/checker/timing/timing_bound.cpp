#include "timing_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cudalab {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::string ms_text(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f ms", ms);
  return b;
}

}  // namespace

double clock_per_call_ms(const BatchTime& b, const TimeBound& bound) {
  if (b.reps <= 0) return 0;
  return std::max(0.0, (b.wall_ms - bound.overhead_ms) / b.reps);
}

BoundVerdict judge_batches(const std::vector<BatchTime>& batches, const TimeBound& bound) {
  BoundVerdict v;
  if (batches.empty()) {
    v.problem = "time refused: no batch was timed";
    return v;
  }
  std::vector<double> reported, clock;
  for (const auto& b : batches) {
    // Not a number, negative, or more than the checker's clock saw: no event pair reports that.
    if (b.reps <= 0 || !(b.reported_ms >= 0) || !(b.wall_ms >= 0) ||
        b.reported_ms > b.wall_ms * (1 + bound.clock_slack) + bound.clock_slack_ms) {
      v.problem = "time refused: a batch of " + std::to_string(b.reps) + " calls reported more time than the " +
                  ms_text(b.wall_ms) + " the checker's own clock saw";
      return v;
    }
    reported.push_back(b.reported_ms / b.reps);
    clock.push_back(clock_per_call_ms(b, bound));
  }
  v.per_call_ms = median(reported);
  v.clock_per_call_ms = median(clock);
  v.least_ms = bound.least_fraction * v.clock_per_call_ms;
  if (!(v.per_call_ms >= v.least_ms)) {
    v.problem = "time refused: the reported time per call is below what the checker's own clock allows (at least " +
                ms_text(v.least_ms) + " per call: its clock saw " + ms_text(v.clock_per_call_ms) +
                " per call over batches of " + std::to_string(batches.front().reps) + " calls)";
    return v;
  }
  v.ok = true;
  return v;
}

int batch_reps(double est_ms, uint64_t set_bytes, uint64_t budget_bytes, const TimeBound& bound) {
  const double per_call = std::max(est_ms, 0.0005);  // a call never takes less than half a microsecond
  double by_time = std::ceil(bound.target_batch_ms / per_call);
  if (!(by_time >= 1)) by_time = 1;
  const double by_memory = set_bytes ? double(budget_bytes / set_bytes) : double(bound.max_reps);
  const double reps = std::min({by_time, by_memory, double(bound.max_reps)});
  return reps < 1 ? 1 : int(reps);
}

std::vector<bool> calls_to_check(size_t reps, size_t others, std::mt19937_64& draw) {
  std::vector<bool> check(reps, false);
  if (reps == 0) return check;
  if (others + 2 >= reps) return std::vector<bool>(reps, true);
  check.front() = check.back() = true;
  for (size_t added = 0; added < others;) {
    const size_t i = 1 + size_t(draw() % (reps - 2));
    if (!check[i]) {
      check[i] = true;
      ++added;
    }
  }
  return check;
}

}  // namespace cudalab
