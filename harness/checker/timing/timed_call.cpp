#include "timed_call.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "timed_batch.h"
#include "timing_trace.h"
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

namespace {

// Elements a call's sampled outputs draw when it is checked (lab_call.h: sampled_output).
uint64_t samples_per_call(const LabCall& c) {
  uint64_t n = 0;
  for (size_t b = 0; b < c.request().buffers.size(); ++b) n += c.samples_of(b);
  return n;
}

using MakeCall = std::function<LabCall(int rep)>;
using VerifyCall = std::function<std::string(int rep, const LabCall&, const LabCallResult&)>;

// One timing of the lab's calls: warm-up batches until the batch size settles, then the timed
// batches, each call's output checked where the draw says. A failure sets timing.problem.
class BatchTimer {
 public:
  BatchTimer(RunnerSession& runner, const MakeCall& make_call, const VerifyCall& verify, const StudentTimingConfig& cfg)
      : runner_(runner), make_call_(make_call), verify_(verify), cfg_(cfg) {
    // What one call takes, for how many fit in memory and how many get checked.
    const LabCall first = make_call_(0);
    per_call_bytes_ = set_bytes(first);
    budget_ = cfg_.memory_budget_bytes;
    if (!budget_) {
      const uint64_t device = runner_.runner().hello().device.memory_bytes;
      budget_ = device ? device / 2 : uint64_t(4) << 30;
    }
    const uint64_t checkable_calls = std::max<uint64_t>(cfg_.verify_elements / input_elements(first), 1);
    const int total_batches = cfg_.batches + 2;  // about two warm-ups
    uint64_t others = uint64_t(std::max<int64_t>(1, int64_t(checkable_calls / uint64_t(total_batches)) - 2));
    // The elements drawn from a batch's checked calls travel in one message (wire::kMaxBatchSamples).
    if (const uint64_t drawn = samples_per_call(first); drawn > 0)
      others = std::min<uint64_t>(others, std::max<uint64_t>(wire::kMaxBatchSamples / drawn, 3) - 2);
    others_ = size_t(others);
  }

  // The first call alone; unless it lasted a batch by itself, cfg.warmups - 1 more. The batch
  // size the clock then asks for; 0 when a warm-up batch failed.
  int warm_up();
  // Batches of the R the last one's clock asks for, from `reps`: the first whose own clock
  // agrees with its R (within a quarter; after 3 re-sizings, whatever it is) is the first of the
  // timed batches. False when one failed or was refused.
  bool time_batches(int reps, std::vector<BatchTime>& timed);
  StudentTiming& timing() { return t_; }

 private:
  // One batch of `reps` calls (fewer, in a fresh runner, when they do not fit in its memory);
  // `all` checks every call. False (t_.problem set) when the batch could not run or a call's
  // output was wrong.
  bool run_batch(int& reps, bool all, TimedBatch& out);
  std::vector<LabCall> make_batch(int reps) const;
  bool outputs_right(int reps, const std::vector<LabCall>& calls, const TimedBatch& out);
  double per_call_ms(int reps, const TimedBatch& b) const {
    return clock_per_call_ms({reps, b.ms, b.wall_ms}, cfg_.bound);
  }

  RunnerSession& runner_;
  const MakeCall& make_call_;
  const VerifyCall& verify_;
  const StudentTimingConfig& cfg_;
  StudentTiming t_;
  std::mt19937_64 draw_{std::random_device{}()};  // which calls are checked: the runner cannot see it
  int next_rep_ = 0;
  uint64_t per_call_bytes_ = 0, budget_ = 0;
  size_t others_ = 0;  // calls checked per batch besides the first and the last
};

std::vector<LabCall> BatchTimer::make_batch(int reps) const {
  std::vector<LabCall> calls;
  calls.reserve(size_t(reps));
  for (int i = 0; i < reps; ++i) {
    calls.push_back(make_call_(next_rep_ + i));
    calls.back().request().sync_after_launch = false;
    calls.back().request().flush_l2 = cfg_.flush_l2;
  }
  return calls;
}

bool BatchTimer::outputs_right(int reps, const std::vector<LabCall>& calls, const TimedBatch& out) {
  for (int i = 0; i < reps; ++i) {
    if (!out.results[size_t(i)]) continue;
    if (std::string wrong = verify_(next_rep_ + i, calls[size_t(i)], *out.results[size_t(i)]); !wrong.empty()) {
      t_.wrong_answer = true;
      t_.problem = wrong + " (timed call " + std::to_string(next_rep_ + i + 1) + ", with inputs of its own)";
      return false;
    }
  }
  return true;
}

bool BatchTimer::run_batch(int& reps, bool all, TimedBatch& out) {
  for (int attempt = 0;; ++attempt) {
    std::vector<LabCall> calls = make_batch(reps);
    try {
      // A warm-up (every call checked) only sizes the batches: it waits out no other run's start-up.
      const bool warm_up = all;
      out = run_timed_batch(
          runner_, calls,
          [&](size_t n) {
            if (all) return std::vector<bool>(n, true);
            return cfg_.check_later_batches ? calls_to_check(n, others_, draw_) : std::vector<bool>(n, false);
          },
          !warm_up);
    } catch (const LabCallFailure& f) {
      // The runner could not make every call's buffers: fewer calls, in a fresh runner.
      if (f.kind == LabCallFailure::Kind::OutOfMemory && reps > 1 && attempt < 6) {
        timing_trace("batch of %d: out of GPU memory; again with %d calls, in a fresh runner", reps,
                     std::max(1, reps / 2));
        runner_.discard();
        reps = std::max(1, reps / 2);
        continue;
      }
      runner_.discard();  // a failed batch leaves the conversation mid-way: start afresh
      t_.problem = "timing stopped in the batch of calls " + std::to_string(next_rep_ + 1) + " to " +
                   std::to_string(next_rep_ + reps) + ": " + f.what();
      t_.wrong_answer = f.kind != LabCallFailure::Kind::TimedOut;
      return false;
    }
    const auto verify_start = std::chrono::steady_clock::now();
    const bool right = outputs_right(reps, calls, out);
    timing_trace(
        "batch of %d: prepared in %.1f ms, waited %.1f ms, ran %.2f ms (runner's events %.2f), outputs back "
        "%.1f ms, checked %.1f ms",
        reps, out.prepare_ms, out.startup_wait_ms, out.wall_ms, out.ms, out.hand_back_ms,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - verify_start).count());
    if (!right) return false;
    next_rep_ += reps;
    return true;
  }
}

int BatchTimer::warm_up() {
  const uint64_t by_memory = std::max<uint64_t>(1, budget_ / std::max<uint64_t>(per_call_bytes_, 1));
  int reps = 1;
  TimedBatch b;
  if (!run_batch(reps, true, b)) return 0;
  double est = per_call_ms(reps, b);
  if (est < cfg_.bound.target_batch_ms && cfg_.warmups > 1) {
    reps = int(std::min<uint64_t>(uint64_t(cfg_.warmups - 1), by_memory));
    if (!run_batch(reps, true, b)) return 0;
    est = per_call_ms(reps, b);
  }
  return batch_reps(est, per_call_bytes_, budget_, cfg_.bound);
}

// Timed batches and re-sized ones are all made and judged alike: a batch re-run only to confirm
// its size would be host time for nothing.
bool BatchTimer::time_batches(int reps, std::vector<BatchTime>& timed) {
  TimedBatch b;
  for (int resized = 0; int(timed.size()) < cfg_.batches;) {
    int used = reps;
    if (!run_batch(used, false, b)) return false;
    if (b.threads_left > 0) {
      t_.problem = "time refused: your code left " + std::to_string(b.threads_left) +
                   " host thread(s) running after it returned; work they do after the timing's stop event would count "
                   "in neither clock";
      return false;
    }
    reps = used;
    if (timed.empty() && resized < 3) {
      const int asked = batch_reps(per_call_ms(used, b), per_call_bytes_, budget_, cfg_.bound);
      if (std::abs(asked - used) > std::max(1, used / 4)) {
        reps = asked;
        ++resized;
        continue;
      }
    }
    timed.push_back({used, b.ms, b.wall_ms});
    t_.all_ms.push_back(used > 0 ? b.ms / used : 0);
  }
  t_.reps = reps;
  t_.batches = int(timed.size());
  return true;
}

}  // namespace

StudentTiming time_lab_calls(RunnerSession& runner, const MakeCall& make_call, const VerifyCall& verify,
                             const StudentTimingConfig& cfg) {
  BatchTimer timer(runner, make_call, verify, cfg);
  StudentTiming& t = timer.timing();
  std::vector<BatchTime> timed;
  const int reps = timer.warm_up();
  if (reps == 0 || !timer.time_batches(reps, timed)) return t;
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

bool accept_student_timing(const StudentTiming& t, TimingReport& report, double floor_ms,
                           const std::string& floor_what) {
  if (!t.ok) {
    if (t.wrong_answer)
      report.wrong_answer(t.problem);
    else
      report.refused(t.problem);
    return false;
  }
  if (floor_ms > 0 && t.median_ms < floor_ms) {
    report.refused("time refused: " + ms_text(t.median_ms) + " is below what the hardware allows (" + floor_what +
                   " takes at least " + ms_text(floor_ms) + ")");
    return false;
  }
  return true;
}

bool student_processes_ended(RunnerSession& runner, TimingReport& report) {
  if (runner.end_student_processes()) return true;
  report.status = "error";
  report.rows.clear();
  report.note =
      "timing stopped: a process of your code's outlived SIGKILL, so nothing the checker times itself "
      "would be alone on the machine";
  return false;
}

std::string timing_method_note(const StudentTiming& t, const std::string& ceiling_how) {
  char clock[200];
  std::snprintf(clock, sizeof clock, "%.4f ms reported, %.4f ms on the checker's clock, at least %.4f ms accepted",
                t.median_ms, t.wall_median_ms, t.least_ms);
  return "every GPU row timed one way: " + shared_timing_method() + ". Yours: " + t.method() + " (per call: " + clock +
         "). The CPU row: a steady clock, one run when it takes over 0.1 s, else the median of 3 after a "
         "warm-up. " +
         ceiling_how;
}

}  // namespace cudalab
