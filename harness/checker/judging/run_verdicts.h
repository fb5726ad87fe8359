// The verdicts over a whole run, made from the other checks' results ("barriers" and "races": a
// rubric can give them points), and the race a check's notes name, made that check's verdict.
// The run (checker/run/run_checks.cpp) runs them last.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "checker/types/suite.h"

namespace cudalab {

// Whether a case is one of these verdicts over the others (they run after every other check).
bool verdict_over_run(const CheckCase& c);

// "barriers": no barrier divergence in any check (the CPU backend's emulator sees every
// __syncthreads() every thread reaches). A hidden check's notes are never quoted.
CheckCase barriers_case();
CheckResult barriers_verdict(const std::vector<CheckOutcome>& done, const std::vector<std::string>& hidden);

// "races": no data race in any check, judged only under the CPU backend's race detector
// (`detector`: the runner is CHECK=race's).
CheckCase races_case();
CheckResult races_verdict(const std::vector<CheckOutcome>& done, const std::vector<std::string>& hidden, int lab,
                          bool detector);

// A race the detector named in a check's notes fails that check when it changes its answers (wrong
// in either order the schedule probe ran, `probed`, or a lost update), told in full once; a race
// that changed none is left as a note and fails the races check only. `first_check`: the races
// this run has told already (race -> the check it was told under).
void fail_on_race(const std::string& check_id, CheckResult& r, bool probed,
                  std::map<std::string, std::string>& first_check);

}  // namespace cudalab
