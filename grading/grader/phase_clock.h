// Where a grading run's time goes: each step of each student's grading (the jail's readiness
// check, the preprocessor, the compile, the checks, the timing) adds its seconds here, from
// whichever thread ran it. The run's closing lines and summary.json report the totals, so an
// instructor (and whoever speeds the grader up) sees what a student costs and why.
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace grading {

class PhaseClock {
 public:
  // Adds one run of `step` that started at `start` and ends now.
  void add(const std::string& step, std::chrono::steady_clock::time_point start);
  // One line per step: how many, their mean, their sum, and the wall time from the first
  // one's start to the last one's end (steps that overlap across students overlap here too).
  std::string describe() const;
  nlohmann::json to_json() const;

 private:
  struct Step {
    size_t count = 0;
    double busy_seconds = 0;
    std::chrono::steady_clock::time_point first_start, last_end;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Step> steps_;
};

// A step's name for the run on `gpu` ("checks (GPU 1)"): the class report then shows whether the
// GPUs shared the work. The CPU backend's runs (no GPU) keep the plain name.
inline std::string on_gpu(const std::string& step, const std::string& gpu) {
  return gpu.empty() ? step : step + " (GPU " + gpu + ")";
}

// Times a scope into a PhaseClock (none: nothing is recorded).
class PhaseTimer {
 public:
  PhaseTimer(PhaseClock* clock, std::string step)
      : clock_(clock), step_(std::move(step)), start_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    if (clock_) clock_->add(step_, start_);
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  PhaseClock* clock_;
  std::string step_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace grading
