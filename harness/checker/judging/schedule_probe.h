// On the CPU backend, a check's verdict is tried again with the emulator's threads and blocks
// in another order (reverse, in a fresh runner). A GPU runs threads and blocks in an order no
// one promises; code whose result depends on the order has a race, and a verdict that changes
// with the order is named as one:
//   passes in order, fails reversed -> the check fails: "a race: right ... wrong in reverse";
//   fails in order, passes reversed -> it fails as "a race: wrong ... right in reverse";
// either way the wrong numbers stay in the message, the first such check explains the race
// (a __syncthreads() missing, or blocks reading what other blocks write) and later ones point
// back to it.
#pragma once
#include <cstdint>

#include <string>

#include "checker/types/suite.h"
#include "checker/calls/lab_call.h"

namespace cudalab {

// Whether the probe runs for this check (CPU backend, no --schedule given, a size the
// emulator runs twice in well under a second).
bool schedule_probe_applies(const RunnerSession& runner, const CheckCase& c);

// What the probe keeps over a run: whether the runner is the race detector's build (CHECK=race;
// its Hello says so), so that the advice does not send the student to the checker already
// running, and the check whose race it explained in full (later ones point back to it).
struct ScheduleProbeState {
  bool race_detector = false;
  std::string first_race_check;
};

// Runs the check again in another order (in its own CallContext: the report keeps the in-order
// run's launches; the runner's words of both runs go to `calls`) and names a race in `r`.
void probe_schedules(CallContext& calls, ScheduleProbeState& state, const LabSuite& suite, const CheckCase& c,
                     uint64_t seed, CheckResult& r);

}  // namespace cudalab
