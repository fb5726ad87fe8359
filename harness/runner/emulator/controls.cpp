// cudalab CPU backend: the kernel runner's controls (control.h) that are not the schedule's
// (schedule.cpp) or run_host_code (faults.cpp): workers, failures and notes, observers, the
// guarded memory, what to read before the lockdown (emulator_internal.h: the emulator's other files).
#include "arena.h"
#include "emulator_internal.h"  // (with race.h or profile.h in those builds)

#include <algorithm>

namespace cudalab_cpu::control {

using namespace emulator;

int worker_count() { return configured_workers(); }
// The pool grows to the largest count asked for and a launch wakes only as many helpers as it
// needs, so the count can change between launches.
void set_worker_count(int n) { g_workers = n > 0 ? std::clamp(n, 1, 256) : 0; }

const char* last_failure() { return g_last_failure.c_str(); }

std::vector<std::string> take_notes(bool quiet_from_now) {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  g_quiet_notes = quiet_from_now;
#if defined(CUDALAB_CPU_RACE)
  g_races_noted.clear();
#endif
  std::vector<std::string> out;
  out.swap(g_notes);
#if defined(CUDALAB_CPU_PROFILE)
  for (auto& n : profile::take_notes()) out.push_back(std::move(n));
#endif
  return out;
}

void set_launch_observer(LaunchObserver observer) { g_launch_observer = observer; }

GuardedMemory guarded_memory() {
  const arena::Guard g = arena::guard();
  return {g.site, g.ranges};
}

void prepare_for_lockdown() {
  configured_workers();
#if defined(CUDALAB_CPU_RACE)
  race::prepare_reports();
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::prepare_reports();
#endif
}

}  // namespace cudalab_cpu::control
