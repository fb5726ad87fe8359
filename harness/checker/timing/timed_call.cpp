#include "timed_call.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "checker/calls/runner_session.h"

namespace cudalab {

namespace {

std::string ms_text(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f ms", ms);
  return b;
}

// GPU memory one call's buffers take, guards included.
uint64_t set_bytes(const LabCall& c) {
  uint64_t b = 0;
  for (const auto& buf : c.request().buffers) b += buf.count * wire::elem_size(buf.type) + wire::kGuardElements * 4;
  return b;
}

// Input elements of one call: what the checker's reference of a call reads.
uint64_t input_elements(const LabCall& c) {
  uint64_t n = 0;
  for (const auto& buf : c.request().buffers)
    if (buf.fill.kind != wire::FillKind::Poison) n += buf.count;
  return std::max<uint64_t>(n, 1);
}

}  // namespace

std::string StudentTiming::method() const {
  return std::to_string(batches) + " batches of " + std::to_string(reps) + " calls";
}

std::string shared_timing_method() {
  return "each in a kernel runner (yours: your file's; the others: the harness's), CUDA events around batches of "
         "calls back to back (about 20 ms a batch), fresh inputs for every call, the L2 flushed before each batch, the "
         "median of 5 batches' time per call, held to the checker's own clock";
}

StudentTiming time_lab_calls(const std::function<LabCall(int rep)>& make_call,
                             const std::function<std::string(int rep, const LabCall&, const LabCallResult&)>& verify,
                             const StudentTimingConfig& cfg) {
  StudentTiming t;
  std::mt19937_64 draw(std::random_device{}());  // which calls are checked: the runner cannot see it
  int next_rep = 0;

  // What one call takes, for how many fit in memory and how many get checked.
  const LabCall first = make_call(0);
  const uint64_t per_call_bytes = set_bytes(first);
  uint64_t budget = cfg.memory_budget_bytes;
  if (!budget) {
    const uint64_t device = runner().hello().device.memory_bytes;
    budget = device ? device / 2 : uint64_t(4) << 30;
  }
  const uint64_t checkable_calls = std::max<uint64_t>(cfg.verify_elements / input_elements(first), 1);
  const int total_batches = cfg.batches + 2;  // about two warm-ups
  const size_t others = size_t(std::max<int64_t>(1, int64_t(checkable_calls / uint64_t(total_batches)) - 2));

  // One batch of `reps` calls; `all` checks every call. Returns false (t.problem set) when a
  // call's output was wrong or the batch could not run.
  auto run_batch = [&](int& reps, bool all, TimedBatch& out) -> bool {
    for (int attempt = 0;; ++attempt) {
      std::vector<LabCall> calls;
      calls.reserve(size_t(reps));
      for (int i = 0; i < reps; ++i) {
        calls.push_back(make_call(next_rep + i));
        calls.back().request().sync_after_launch = false;
        calls.back().request().flush_l2 = cfg.flush_l2;
      }
      try {
        out = run_timed_batch(calls, [&](size_t n) {
          if (all) return std::vector<bool>(n, true);
          return cfg.check_later_batches ? calls_to_check(n, others, draw) : std::vector<bool>(n, false);
        });
      } catch (const LabCallFailure& f) {
        // The runner could not make every call's buffers: fewer calls, in a fresh runner.
        if (f.kind == LabCallFailure::Kind::OutOfMemory && reps > 1 && attempt < 6) {
          runner_discard();
          reps = std::max(1, reps / 2);
          continue;
        }
        runner_discard();  // a failed batch leaves the conversation mid-way: start afresh
        t.problem = "timing stopped in the batch of calls " + std::to_string(next_rep + 1) + " to " +
                    std::to_string(next_rep + reps) + ": " + f.what();
        t.wrong_answer = f.kind != LabCallFailure::Kind::TimedOut;
        return false;
      }
      for (int i = 0; i < reps; ++i) {
        if (!out.results[size_t(i)]) continue;
        if (std::string wrong = verify(next_rep + i, calls[size_t(i)], *out.results[size_t(i)]); !wrong.empty()) {
          t.wrong_answer = true;
          t.problem = wrong + " (timed call " + std::to_string(next_rep + i + 1) + ", with inputs of its own)";
          return false;
        }
      }
      next_rep += reps;
      return true;
    }
  };

  // Warm-ups: a few calls, then batches of the size the clock asks for until it settles.
  const uint64_t by_memory = std::max<uint64_t>(1, budget / std::max<uint64_t>(per_call_bytes, 1));
  int reps = int(std::min<uint64_t>(uint64_t(std::max(1, cfg.warmups)), by_memory));
  TimedBatch b;
  if (!run_batch(reps, true, b)) return t;
  double est = clock_per_call_ms({reps, b.ms, b.wall_ms}, cfg.bound);
  reps = batch_reps(est, per_call_bytes, budget, cfg.bound);
  for (int warm = 0; warm < 3; ++warm) {
    int used = reps;
    if (!run_batch(used, false, b)) return t;
    est = clock_per_call_ms({used, b.ms, b.wall_ms}, cfg.bound);
    reps = batch_reps(est, per_call_bytes, budget, cfg.bound);
    if (std::abs(reps - used) <= std::max(1, used / 4)) {
      reps = used;
      break;
    }
  }

  std::vector<BatchTime> timed;
  for (int k = 0; k < cfg.batches; ++k) {
    if (!run_batch(reps, false, b)) return t;
    if (b.threads_left > 0) {
      t.problem = "time refused: your code left " + std::to_string(b.threads_left) +
                  " host thread(s) running after it returned; work they do after the timing's stop event would count "
                  "in neither clock";
      return t;
    }
    timed.push_back({reps, b.ms, b.wall_ms});
    t.all_ms.push_back(reps > 0 ? b.ms / reps : 0);
  }
  t.reps = reps;
  t.batches = int(timed.size());
  const BoundVerdict v = judge_batches(timed, cfg.bound);
  t.median_ms = v.per_call_ms;
  t.wall_median_ms = v.clock_per_call_ms;
  t.least_ms = v.least_ms;
  if (!v.ok) {
    t.problem = v.problem;
    return t;
  }
  t.ok = true;
  return t;
}

bool accept_student_timing(const StudentTiming& t, TimingReport& report, double floor_ms, const std::string& floor_what) {
  if (!t.ok) {
    if (t.wrong_answer) report.wrong_answer(t.problem);
    else report.refused(t.problem);
    return false;
  }
  if (floor_ms > 0 && t.median_ms < floor_ms) {
    report.refused("time refused: " + ms_text(t.median_ms) + " is below what the hardware allows (" + floor_what +
                   " takes at least " + ms_text(floor_ms) + ")");
    return false;
  }
  return true;
}

bool student_processes_ended(TimingReport& report) {
  if (end_student_processes()) return true;
  report.status = "error";
  report.rows.clear();
  report.note = "timing stopped: a process of your code's outlived SIGKILL, so nothing the checker times itself "
                "would be alone on the machine";
  return false;
}

std::string timing_method_note(const StudentTiming& t, const std::string& ceiling_how) {
  char clock[200];
  std::snprintf(clock, sizeof clock, "%.4f ms reported, %.4f ms on the checker's clock, at least %.4f ms accepted",
                t.median_ms, t.wall_median_ms, t.least_ms);
  return "every GPU row timed one way: " + shared_timing_method() + ". Yours: " + t.method() + " (per call: " + clock +
         "). The CPU row: a steady clock, the median of a few runs. " + ceiling_how;
}

}  // namespace cudalab
