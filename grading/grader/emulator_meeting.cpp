#include "emulator_meeting.h"

namespace grading {

EmulatorMeeting::EmulatorMeeting(const GradingContext& ctx, std::function<void(const StudentResult&)> finish)
    : ctx_(ctx), finish_(std::move(finish)) {}

void EmulatorMeeting::gpu_done(const Built& built, StudentResult r, bool emulator_pending) {
  std::optional<Built> emulated;
  {
    std::lock_guard<std::mutex> l(m_);
    auto it = waiting_.find(r.student);
    if (it != waiting_.end() && it->second.abandoned) {
      waiting_.erase(it);
      return;
    }
    if (!emulator_pending) {
      // A run that ended in trouble takes no emulator verdict (as with EmulatorStep::Inline):
      // the student is finished now, and an emulator run still to come is dropped.
      if (built.emulator_later) {
        if (it != waiting_.end())
          waiting_.erase(it);
        else
          waiting_[r.student] = {};  // remembered as finished
      }
    } else if (it != waiting_.end() && it->second.emulated) {
      emulated = std::move(it->second.emulated);
      waiting_.erase(it);
    } else {
      waiting_[r.student].gpu = std::move(r);
      return;
    }
  }
  if (emulated)
    complete(*emulated, std::move(r));
  else
    finish_(r);
}

void EmulatorMeeting::emulator_done(const Built& built) {
  std::optional<StudentResult> gpu;
  {
    std::lock_guard<std::mutex> l(m_);
    auto it = waiting_.find(built.result.student);
    if (it == waiting_.end()) {
      waiting_[built.result.student].emulated = built;
      return;
    }
    if (!it->second.gpu) {  // the GPU's half finished the student already, without it
      waiting_.erase(it);
      return;
    }
    gpu = std::move(it->second.gpu);
    waiting_.erase(it);
  }
  complete(built, std::move(*gpu));
}

void EmulatorMeeting::abandon(const std::string& student) {
  std::lock_guard<std::mutex> l(m_);
  Halves& h = waiting_[student];
  h.gpu.reset();  // a GPU half already here is not finished either
  h.abandoned = true;
}

void EmulatorMeeting::finish_the_rest() {
  std::map<std::string, Halves> left;
  {
    std::lock_guard<std::mutex> l(m_);
    left.swap(waiting_);
  }
  for (auto& [student, halves] : left)
    if (halves.gpu && !halves.abandoned) {
      Built none;
      none.result.student = student;
      complete(none, std::move(*halves.gpu));  // keeps the checker's verdicts, with a note
    }
}

void EmulatorMeeting::complete(const Built& emulated, StudentResult r) {
  merge_emulator_verdicts(ctx_, emulated, r);
  if (emulated.emulator_run) r.seconds += emulated.emulator_run->seconds;
  finish_(r);
}

}  // namespace grading
