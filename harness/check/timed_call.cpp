#include "timed_call.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "diagnose.h"
#include "runner_session.h"

namespace cudalab {

struct TimedRepResult {
  LabCallResult result;
  double ms = 0, wall_ms = 0;
  uint32_t threads_left = 0;
  bool outputs = false;
};
TimedRepResult run_timed_rep(LabCall& call, const std::vector<std::vector<uint8_t>>& data, const std::string& function,
                             const std::function<bool()>& check_this_one);

static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

static std::string ms_text(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f ms", ms);
  return b;
}

StudentTiming time_lab_calls(const std::function<LabCall(int rep)>& make_call,
                             const std::function<std::string(int rep, const LabCall&, const LabCallResult&)>& verify,
                             const StudentTimingConfig& cfg) {
  StudentTiming t;
  std::vector<double> wall;
  const int total = cfg.warmups + cfg.repeats;
  // Every repetition is checked when its outputs are small (the sums: bytes). When they are
  // large (a 400 MB transpose), bringing each back would cost more than the timing itself:
  // which repetitions are checked is then drawn after each one ran, from a generator the
  // runner cannot see: the first, the last, and each other with probability 1/4. An answer
  // cached or skipped after the first repetition is then caught with high probability.
  std::mt19937_64 draw(std::random_device{}());
  auto returned_bytes = [](const LabCall& c) {
    uint64_t b = 0;
    for (const auto& buf : c.request().buffers)
      if (buf.return_data) b += buf.count * wire::elem_size(buf.type);
    return b;
  };
  struct Deferred {
    int rep;
    LabCall call;
    LabCallResult result;
  };
  std::vector<Deferred> deferred;
  // Every repetition's output is checked: no answer can be cached or skipped.
  auto wrong_in = [&](int rep, const std::string& wrong) {
    t.wrong_answer = true;
    t.problem = wrong + " (timed repetition " + std::to_string(rep + 1) + " of " + std::to_string(total) +
                ", with inputs of its own)";
    return t;
  };
  for (int rep = 0; rep < total; ++rep) {
    LabCall call = make_call(rep);
    call.request().sync_after_launch = false;
    call.request().flush_l2 = cfg.flush_l2;
    TimedRepResult r;
    try {
      // Data inputs travel with the request; LabCall keeps them (see lab_call.cpp).
      r = run_timed_rep(call, call.data_for_timing(), call.function(),
                        [&] {
                          return returned_bytes(call) <= (16u << 20) || rep == 0 || rep == total - 1 || draw() % 4 == 0;
                        });
    } catch (const LabCallFailure& f) {
      runner_discard();  // a failed repetition leaves the conversation mid-way: start afresh
      t.problem = std::string("timing stopped in repetition ") + std::to_string(rep + 1) + ": " + f.what();
      t.wrong_answer = f.kind != LabCallFailure::Kind::TimedOut;
      return t;
    }
    // Small outputs are checked after the last repetition: a host reference between two
    // repetitions would leave the GPU idle long enough to lower its clocks, and the next
    // repetition would pay for it. Large ones (few, drawn) are checked now, to free them.
    if (r.outputs && returned_bytes(call) <= (16u << 20)) {
      deferred.push_back({rep, std::move(call), std::move(r.result)});
    } else if (std::string wrong = r.outputs ? verify(rep, call, r.result) : ""; !wrong.empty()) {
      return wrong_in(rep, wrong);
    }
    if (rep < cfg.warmups) continue;
    t.all_ms.push_back(r.ms);
    wall.push_back(r.wall_ms);
  }
  for (const auto& d : deferred)
    if (std::string wrong = verify(d.rep, d.call, d.result); !wrong.empty()) return wrong_in(d.rep, wrong);
  t.median_ms = median(t.all_ms);
  t.wall_median_ms = median(wall);
  // The checker's clock bounds the runner's: the events cannot take longer than the wall clock
  // (1% and 0.05 ms of slack for the clocks' own resolution), nor far less than it (what the
  // runner adds around the call, a few tens of microseconds, is allowed for generously).
  for (size_t i = 0; i < t.all_ms.size(); ++i)
    if (!(t.all_ms[i] >= 0) || t.all_ms[i] > wall[i] * 1.01 + 0.05) {
      t.problem = "time refused: a repetition reported " + ms_text(t.all_ms[i]) + ", more than the " + ms_text(wall[i]) +
                  " the checker's clock saw";
      return t;
    }
  if (t.median_ms < 0.5 * t.wall_median_ms - 0.5) {
    t.problem = "time refused: the median reported time, " + ms_text(t.median_ms) +
                ", is far below the checker's own clock, " + ms_text(t.wall_median_ms);
    return t;
  }
  if (cfg.floor_ms > 0 && t.median_ms < cfg.floor_ms) {
    t.problem = "time refused: " + ms_text(t.median_ms) + " is below what the hardware allows (" + cfg.floor_what +
                " takes at least " + ms_text(cfg.floor_ms) + ")";
    return t;
  }
  t.ok = true;
  return t;
}

bool accept_student_timing(const StudentTiming& t, TimingReport& report) {
  if (t.ok) return true;
  if (t.wrong_answer) report.wrong_answer(t.problem);
  else report.refused(t.problem);
  return false;
}

}  // namespace cudalab
