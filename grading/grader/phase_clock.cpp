#include "phase_clock.h"

#include <cstdio>

namespace grading {

void PhaseClock::add(const std::string& step, std::chrono::steady_clock::time_point start) {
  const auto end = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> l(mutex_);
  Step& s = steps_[step];
  if (s.count == 0 || start < s.first_start) s.first_start = start;
  if (s.count == 0 || end > s.last_end) s.last_end = end;
  s.busy_seconds += std::chrono::duration<double>(end - start).count();
  ++s.count;
}

std::string PhaseClock::describe() const {
  std::lock_guard<std::mutex> l(mutex_);
  std::string out;
  for (const auto& [name, s] : steps_) {
    const double wall = std::chrono::duration<double>(s.last_end - s.first_start).count();
    char line[256];
    std::snprintf(line, sizeof line,
                  "grader: time in %-22s %4zu runs, %7.2f s each, %8.1f s in all, %7.1f s of wall time\n",
                  (name + ":").c_str(), s.count, s.busy_seconds / double(s.count), s.busy_seconds, wall);
    out += line;
  }
  return out;
}

nlohmann::json PhaseClock::to_json() const {
  std::lock_guard<std::mutex> l(mutex_);
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, s] : steps_)
    j[name] = {{"runs", s.count},
               {"busy_seconds", s.busy_seconds},
               {"wall_seconds", std::chrono::duration<double>(s.last_end - s.first_start).count()}};
  return j;
}

}  // namespace grading
