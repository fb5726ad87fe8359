#include "schedule_probe.h"

#include <algorithm>
#include <string>
#include <vector>

#include "checker/calls/runner_session.h"
#include "checker/calls/runner_words.h"

namespace cudalab {

namespace {
#ifdef CUDALAB_BACKEND_CPU
constexpr bool kCpu = true;
#else
constexpr bool kCpu = false;
#endif

// The same check again: reversed in a runner of its own on the CPU backend (a runner keeps its
// first schedule), in the same runner on a GPU (whose warps and blocks take another order of
// their own each run).
// Its runner's words join the in-order run's in `calls`; its launches are not the report's.
CheckResult run_again(CallContext& calls, const LabSuite& suite, const CheckCase& c, uint64_t seed) {
  RunnerSession& runner = calls.runner;
  const RunnerConfig first = runner.config();
  if (kCpu) {
    RunnerConfig reversed = first;
    reversed.schedule = "reverse";
    runner.discard();
    runner.configure(reversed, suite.number);
  }
  CallContext again{runner, {}};
  CheckResult other;
  try {
    other = suite.run(again, c, seed);
  } catch (const LabCallFailure& f) {
    other.status = Status::Error;
    other.message = f.what();
  }
  if (kCpu) {
    runner.discard();
    runner.configure(first, suite.number);
  }
  const auto& words = again.record.runner_words;
  calls.record.runner_words.insert(calls.record.runner_words.end(), words.begin(), words.end());
  return other;
}

// Two failures of an exact check (no rounding: the same code on the same input gives the same
// bits) that differ in what they got. A check with a tolerance can differ by rounding alone
// (float atomics add in the order they arrive), so it is never compared this way.
bool failed_differently(const CheckResult& a, const CheckResult& b) {
  if (a.status != Status::Fail || b.status != Status::Fail || a.tolerance != 0 || b.tolerance != 0) return false;
  // The outputs, not the words: a message may differ for reasons of its own (a cause said once,
  // then pointed back to).
  if (a.mismatches.empty() && b.mismatches.empty()) return false;
  if (a.mismatches.size() != b.mismatches.size()) return true;
  for (size_t i = 0; i < a.mismatches.size(); ++i) {
    const Mismatch &x = a.mismatches[i], &y = b.mismatches[i];
    if (x.index != y.index || x.owner != y.owner || !(x.got == y.got || (x.got != x.got && y.got != y.got)))
      return true;
  }
  return false;
}

}  // namespace

bool schedule_probe_applies(const RunnerSession& runner, const CheckCase& c) {
  if (c.large || c.shape.elements() > (size_t(1) << 22)) return false;
  return !kCpu || runner.config().schedule.empty();
}

void probe_schedules(CallContext& calls, ScheduleProbeState& state, const LabSuite& suite, const CheckCase& c,
                     uint64_t seed, CheckResult& r) {
  if (r.status != Status::Pass && r.status != Status::Fail) return;  // errors speak for themselves
  // On a GPU only a failed exact check is run again: a pass cannot be re-run into a fail there
  // at will, and every check twice would double the run.
  if (!kCpu && (r.status != Status::Fail || r.tolerance != 0)) return;
  const CheckResult other = run_again(calls, suite, c, seed);
  const bool passed = r.status == Status::Pass, passed_again = other.status == Status::Pass;
  const bool differ = failed_differently(r, other);
  if (passed == passed_again && !differ) return;
  // The race is the bug to name, whichever run got it wrong: the wrong numbers are its
  // symptom (and stay in the message). Said in full once; later checks point back.
  const std::string symptom = passed ? other.message : r.message;
  const std::string how = !kCpu    ? "the same input, run twice, gave two different wrong answers"
                          : differ ? "wrong in both orders of the threads, and differently"
                          : passed ? "right when the threads run in one order, wrong in reverse"
                                   : "wrong when the threads run in one order, right in reverse";
  r.status = Status::Fail;
  r.cause = Cause::Race;
  r.message = "a race: " + how + " (" + symptom + ")";
  std::vector<std::string> notes;
  if (state.first_race_check.empty()) {
    state.first_race_check = c.id;
    notes.push_back(std::string(kCpu ? "the CPU backend ran this check again with the threads and blocks of every "
                                       "launch in reverse order, and the answer changed"
                                     : "this check ran twice on the same input and the answer changed") +
                    ": a __syncthreads() is missing between a write and a read of shared memory, or a block reads "
                    "what another block writes" +
                    (kCpu ? "" : " (or something reads memory nothing wrote, which holds whatever was there)") +
                    ". A GPU runs them in an order no one promises, and it changes from run to run");
    // Under CHECK=race the detector watched this very run: a race it did not name is one it
    // cannot see (between blocks through more than one atomic, say), not one to look for again;
    // one it named is the check's first line (fail_on_race, run_checks.cpp).
    auto named = [](const std::vector<std::string>& ns) { return std::any_of(ns.begin(), ns.end(), is_race_note); };
    if (!kCpu || !state.race_detector)
      notes.push_back("make lab" + std::to_string(suite.number) + " CHECK=race names the two lines: " +
                      (kCpu ? "the CPU backend's race detector watches every access of every thread, atomics included"
                            : "compute-sanitizer's racecheck watches every access to shared memory"));
    else if (!named(r.notes) && !named(other.notes))
      notes.push_back(
          "the race detector watched this run and found no two lines to name: look for a block that "
          "reads what another block writes");
  } else {
    notes.push_back("the same kind of race as check " + state.first_race_check + " (see there)");
  }
  for (const auto& n : passed ? other.notes : r.notes) notes.push_back((passed ? "reversed: " : "") + n);
  r.notes = std::move(notes);
}

}  // namespace cudalab
