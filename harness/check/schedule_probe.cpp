#include "schedule_probe.h"

#include <algorithm>

#include "lab_call.h"
#include "runner_session.h"

namespace cudalab {

bool schedule_probe_applies(const CheckCase& c) {
#ifdef CUDALAB_BACKEND_CPU
  const auto& env = runner_config().extra_env;
  const bool user_schedule =
      std::any_of(env.begin(), env.end(), [](const std::string& e) { return e.rfind("CUDALAB_SCHEDULE=", 0) == 0; });
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
  reversed.extra_env.push_back("CUDALAB_SCHEDULE=reverse");
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
  if (passed && !passed_reversed) {
    const std::string first = other.message;
    r.status = Status::Fail;
    r.message = "a race: right when the threads run in one order, wrong in another (" + first + ")";
    r.notes.insert(r.notes.begin(),
                   "the CPU backend ran this check again with threads and blocks in reverse order, and it failed: "
                   "a __syncthreads() is missing between a write and a read of shared memory, or a block reads "
                   "what another block writes. On a GPU the order changes from run to run");
    for (const auto& n : other.notes) r.notes.push_back("reversed: " + n);
  } else if (!passed && passed_reversed) {
    r.notes.insert(r.notes.begin(),
                   "the same check passes when the threads and blocks run in reverse order: your result depends "
                   "on the order threads run. Look for a __syncthreads() missing between a write and a read of "
                   "shared memory, or a block reading what another block writes");
  }
}

}  // namespace cudalab
