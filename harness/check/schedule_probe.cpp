#include "schedule_probe.h"

#include <algorithm>
#include <string>
#include <vector>

#include "lab_call.h"
#include "runner_session.h"

namespace cudalab {

bool schedule_probe_applies(const CheckCase& c) {
#ifdef CUDALAB_BACKEND_CPU
  const bool user_schedule = !runner_config().schedule.empty();
  return !user_schedule && !c.large && c.shape.elements() <= (size_t(1) << 22);
#else
  (void)c;
  return false;
#endif
}

void probe_schedules(const LabSuite& suite, const CheckCase& c, uint64_t seed, CheckResult& r) {
  if (r.status != Status::Pass && r.status != Status::Fail) return;  // errors speak for themselves
  const RunnerConfig in_order = runner_config();
  RunnerConfig reversed = in_order;
  reversed.schedule = "reverse";  // in every request to a runner of its own (a runner keeps its first schedule)
  runner_discard();
  runner_configure(reversed, suite.number);
  CheckResult other;
  try {
    other = suite.run(c, seed);
  } catch (const LabCallFailure& f) {
    other.status = Status::Error;
    other.message = f.what();
  }
  runner_discard();
  runner_configure(in_order, suite.number);
  uint64_t ignored = 0;
  take_last_launches(ignored);

  const bool passed = r.status == Status::Pass, passed_reversed = other.status == Status::Pass;
  if (passed == passed_reversed) return;
  // The race is the bug to name, whichever order got it wrong: the wrong numbers are its
  // symptom (and stay in the message). Said in full once; later checks point back.
  static std::string first_race_check;
  const std::string symptom = passed ? other.message : r.message;
  r.status = Status::Fail;
  r.message = passed ? "a race: right when the threads run in one order, wrong in reverse (" + symptom + ")"
                     : "a race: wrong when the threads run in one order, right in reverse (" + symptom + ")";
  std::vector<std::string> notes;
  if (first_race_check.empty()) {
    first_race_check = c.id;
    notes.push_back("the CPU backend ran this check again with the threads and blocks of every launch in reverse "
                    "order, and the verdict changed: a __syncthreads() is missing between a write and a read of "
                    "shared memory, or a block reads what another block writes. A GPU runs them in an order no one "
                    "promises, and it changes from run to run");
    notes.push_back("make lab" + std::to_string(suite.number) +
                    " CHECK=race names the lines: ThreadSanitizer watches every access of every thread");
  } else {
    notes.push_back("the same kind of race as check " + first_race_check + " (see there)");
  }
  for (const auto& n : passed ? other.notes : r.notes) notes.push_back((passed ? "reversed: " : "") + n);
  r.notes = std::move(notes);
}

}  // namespace cudalab
