// Checks that only the CPU backend's emulator can judge (the checker's report marks them
// "judged_by": "emulator"): barrier divergence, which a GPU lets pass when the threads that skip
// a barrier have exited, and compute-sanitizer's synccheck cannot see; races, which give right
// answers in whatever order one machine happens to run blocks, and only the emulator's race
// detector sees. One file gets one verdict for them wherever it is graded: the grader also builds
// the file for the CPU backend under the race detector (in the same jailed build step) and takes
// these checks' verdicts from an emulator run of it.
#pragma once
#include <string>
#include <vector>

#include "result.h"

namespace grading {

bool has_emulator_checks(const std::vector<CheckOutcome>& checks);

// Each emulator-judged check of `checks` takes the verdict of the check with the same id in
// `emulator` (an emulator run's report of the same file); so does any check the emulator failed
// with cause "race" (a race that changed its answers there), or with a forbidden call, or (one
// that passed here) with an array read or indexed past its end; every other check is left as it is.
void take_emulator_verdicts(std::vector<CheckOutcome>& checks, const std::vector<CheckOutcome>& emulator);

// No emulator verdict could be had (`why`: the CPU build or its run failed): the checker's own
// verdicts of the emulator-judged checks stay, each with a note saying so.
void keep_checker_verdicts(std::vector<CheckOutcome>& checks, const std::string& why);

}  // namespace grading
