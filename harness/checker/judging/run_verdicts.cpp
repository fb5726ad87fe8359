#include "run_verdicts.h"

#include <algorithm>

#include "checker/calls/runner_words.h"

namespace cudalab {
namespace {

#ifdef CUDALAB_BACKEND_CPU
constexpr bool kCpuBackend = true;
#else
constexpr bool kCpuBackend = false;
#endif

// What follows a race the detector named in a check whose answers it did not change (fail_on_race).
const char* const kHarmlessRace =
    "your answers came out right with the threads and blocks in either order, so this check keeps its "
    "points; the race is still there, and the races check fails on it";

// The race a check's run left as a note because it changed no answer ("" when none).
std::string harmless_race(const CheckResult& r) {
  auto it = std::find(r.notes.begin(), r.notes.end(), std::string(kHarmlessRace));
  return it == r.notes.begin() || it == r.notes.end() || !is_race_note(*(it - 1)) ? "" : *(it - 1);
}

// Whether the detector named a race in this check, whether or not it changed the answers.
bool saw_race(const CheckResult& r) { return r.cause == Cause::Race || !harmless_race(r).empty(); }

}  // namespace

// The checks whose verdict is made from the others' (barriers, races): they run last.
bool verdict_over_run(const CheckCase& c) { return c.id == "barriers" || c.id == "races"; }

// A verdict over the whole run: no barrier divergence in any check. The CPU backend's emulator
// sees every __syncthreads() every thread reaches and notes a barrier that some threads of a
// block never reach (inside an `if` not all of them enter, after a `return`); a GPU hangs or
// goes on silently. A check of its own, so that a rubric can give it points.
CheckCase barriers_case() {
  CheckCase c{"barriers", "every thread of a block reaches the same __syncthreads()", Shape{}, false};
  c.judged_by_emulator = true;  // a GPU lets exited threads pass a barrier: only the emulator sees them all
  return c;
}

CheckResult barriers_verdict(const std::vector<CheckOutcome>& done, const std::vector<std::string>& hidden) {
  CheckResult r;
  if (!kCpuBackend) {
    r.status = Status::Skipped;
    r.cause = Cause::NeedsEmulator;
    r.message = "judged on the CPU backend; on a GPU, make labN CHECK=synccheck finds barrier divergence";
    return r;
  }
  // One note per barrier (file:line), whichever block and check it came from.
  std::vector<std::string> seen;
  // A run in which nothing passed (a stub) has shown no barrier worth judging. A check failed
  // for a race alone (CHECK=race) saw the kernel at work all the same.
  if (std::none_of(done.begin(), done.end(), [](const CheckOutcome& o) {
        return o.result.status == Status::Pass || o.result.cause == Cause::Race;
      })) {
    r.status = Status::NotRun;
    r.cause = Cause::NotJudged;
    r.message = "not judged: no check passed, so no barrier of yours was seen at work";
    return r;
  }
  for (const auto& o : done) {
    // A hidden check's notes are its own: a visible verdict never quotes one.
    if (std::find(hidden.begin(), hidden.end(), o.check.id) != hidden.end()) continue;
    for (const auto& n : o.result.notes) {
      const size_t at = n.find("barrier divergence at ");
      if (at == std::string::npos) continue;
      const std::string where = n.substr(at, n.find(' ', at + 22) - at);
      if (std::find(seen.begin(), seen.end(), where) != seen.end()) continue;
      seen.push_back(where);
      r.notes.push_back(n);
    }
  }
  if (r.notes.empty()) {
    r.status = Status::Pass;
    r.message = "every thread reached every __syncthreads() of its block, in every check";
  } else {
    r.status = Status::Fail;
    r.cause = Cause::BarrierDivergence;
    r.message =
        "barrier divergence: some threads of a block skipped a __syncthreads() the others waited at. A GPU "
        "does not define what happens then (a hang, or wrong results); move the barrier out of the if";
  }
  return r;
}

// A verdict over the whole run: no data race in any check. Only the CPU backend's race detector
// (CHECK=race) sees every access of every thread: a race can give right answers in the order one
// machine happens to run blocks (a level of lab 3 that sums its input in place passes in block
// order, on the emulator and on an H100 alike), so the outputs cannot judge it. A check of its
// own, so that a rubric can give it points; the grader takes it from a run under the detector.
CheckCase races_case() {
  CheckCase c{"races", "no two threads touch the same memory unordered, one of them writing", Shape{}, false};
  c.judged_by_emulator = true;  // only the emulator's race detector watches every access
  return c;
}

// Which race to quote: the first the detector named (both lines, the memory) in a check it failed,
// else the first it named in a check whose answers it left right, else the first the order of
// blocks showed. Hidden checks' words never reach a visible verdict.
static std::string first_race(const std::vector<CheckOutcome>& done, const std::vector<std::string>& hidden) {
  std::string harmless, by_order;
  for (const auto& o : done) {
    if (std::find(hidden.begin(), hidden.end(), o.check.id) != hidden.end()) continue;
    if (o.result.cause == Cause::Race && is_race_note(o.result.message)) return o.result.message;
    if (harmless.empty()) harmless = harmless_race(o.result);
    if (by_order.empty() && o.result.cause == Cause::Race) by_order = o.result.message;
  }
  return harmless.empty() ? by_order : harmless;
}

CheckResult races_verdict(const std::vector<CheckOutcome>& done, const std::vector<std::string>& hidden, int lab,
                          bool detector) {
  CheckResult r;
  if (!detector) {
    r.status = Status::Skipped;
    r.cause = Cause::NeedsEmulator;
    r.message = kCpuBackend ? "judged under the race detector: make lab" + std::to_string(lab) + " CHECK=race runs it"
                            : "judged by the CPU backend's race detector (make lab" + std::to_string(lab) +
                                  " BACKEND=cpu CHECK=race); on a GPU, CHECK=racecheck sees shared memory only";
    return r;
  }
  // A race fails this check whether or not it changed an answer in the orders tried: a GPU's
  // order is not among them, and the answers it gives there may change from run to run.
  if (const std::string race = first_race(done, hidden); !race.empty()) {
    r.status = Status::Fail;
    r.cause = Cause::Race;
    // The first line names the race: both lines and the memory, when the detector named them.
    r.message = race;
    std::vector<std::string> where;
    for (const auto& o : done)
      if (saw_race(o.result) && std::find(hidden.begin(), hidden.end(), o.check.id) == hidden.end())
        where.push_back(o.check.id);
    std::string list;
    for (size_t i = 0; i < where.size() && i < 3; ++i) list += (i ? ", " : "") + where[i];
    if (where.size() > 3) list += " and " + std::to_string(where.size() - 3) + " more";
    r.notes.push_back(std::string(where.size() == 1 ? "seen in check " : "seen in checks ") + list);
    return r;
  }
  if (std::none_of(done.begin(), done.end(), [](const CheckOutcome& o) { return o.result.status == Status::Pass; })) {
    r.status = Status::NotRun;
    r.cause = Cause::NotJudged;
    r.message = "not judged: no check passed, so no kernel of yours was seen at work";
    return r;
  }
  r.status = Status::Pass;
  r.message = "the race detector watched every access of every thread, in every check: no race";
  return r;
}

// A race the CPU backend's detector named (CHECK=race) that changes the check's answers is the bug
// to name: the check fails with its two lines, a wrong result kept as its symptom. It changes them
// when the check failed in either order the schedule probe ran (`probed`), or when its two
// accesses are a read and a write at one line: a lost update (a plain += where an atomic
// belongs), which no order of the emulator's shows, since a block's threads take turns on one core.
// A race whose answers came out right in both orders (every thread writing the same sum, a
// variable written and never read) keeps this check's points, its lines left as a note: the
// races check fails on it (races_verdict), so each check's verdict is the same on every run.
// Without the probe (--schedule, a large check) every named race fails the check. `first_check`:
// the races this run has told in full already (race -> the check it was told under).
void fail_on_race(const std::string& check_id, CheckResult& r, bool probed,
                  std::map<std::string, std::string>& first_check) {
  if (r.status != Status::Pass && r.status != Status::Fail) return;  // errors speak for themselves
  // (The schedule probe keeps the reversed run's notes when only that run failed.)
  const std::string reversed = "reversed: ";
  auto it = std::find_if(r.notes.begin(), r.notes.end(), [&](const std::string& n) {
    return is_race_note(n) || (n.rfind(reversed, 0) == 0 && is_race_note(n.substr(reversed.size())));
  });
  if (it == r.notes.end()) return;
  std::string race = it->rfind(reversed, 0) == 0 ? it->substr(reversed.size()) : *it;
  if (r.status == Status::Pass && probed && !is_lost_update_race(race)) {
    *it = race;
    r.notes.insert(it + 1, kHarmlessRace);
    return;
  }
  r.notes.erase(it);
  if (r.status == Status::Fail) r.notes.insert(r.notes.begin(), "what it did to the result: " + r.message);
  r.status = Status::Fail;
  r.cause = Cause::Race;
  // Said in full once; later checks name the lines only ("a data race on shared memory: a write
  // at X and an atomic update at Y"), whichever threads met there.
  const std::string lines = race.substr(0, race.find(" touch the same memory"));
  auto [seen, fresh] = first_check.emplace(lines, check_id);
  r.message = fresh ? race : lines + ": the same race as check " + seen->second;
}

}  // namespace cudalab
