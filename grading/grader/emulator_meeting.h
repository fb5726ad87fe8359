// Where a student's two halves meet when the emulator's part runs later (EmulatorStep::Later):
// the GPU's result (checks, then timing for a correct kernel) and the emulator's run (the
// checks only it can judge). Whichever comes second completes the student, who is then
// finished (saved) exactly once. The builds of the whole class finish first this way, and the
// emulator's CPU work overlaps the GPU's checks (never the timing, which wants quiet cores).
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "grade_student.h"

namespace grading {

class EmulatorMeeting {
 public:
  EmulatorMeeting(const GradingContext& ctx, std::function<void(const StudentResult&)> finish);

  // The GPU's final result for `built`'s student. `emulator_pending`: it awaits the emulator's
  // verdicts (run_and_finish's flag); otherwise it is finished now, whatever the emulator says.
  void gpu_done(const Built& built, StudentResult r, bool emulator_pending);
  // The emulator's run for a student (built.emulator_run, from emulate()).
  void emulator_done(const Built& built);
  // The emulator's part could not be done for the grader's own reason (a jail that would not
  // start): the student is not finished in this run, so that the next run grades them again.
  void abandon(const std::string& student);
  // Students still waiting for a half that will not come (none, when every thread finished):
  // finished with what they have, the emulator-judged checks keeping the checker's verdicts.
  void finish_the_rest();

 private:
  struct Halves {
    std::optional<StudentResult> gpu;
    std::optional<Built> emulated;
    bool abandoned = false;
  };
  void complete(const Built& emulated, StudentResult r);

  const GradingContext& ctx_;
  std::function<void(const StudentResult&)> finish_;
  std::mutex m_;
  std::map<std::string, Halves> waiting_;
};

}  // namespace grading
