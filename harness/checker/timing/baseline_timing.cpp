#include "baseline_timing.h"

#include <unistd.h>

#include <string>

#include "checker/calls/runner_session.h"

namespace cudalab {
namespace {

// build/cuda/check/labN -> build/cuda/baselines/labN-runner: make builds it with the checker.
std::string baseline_runner_path(int lab) {
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return "";
  std::string dir(self, size_t(len));
  for (int up = 0; up < 2 && dir.find('/') != std::string::npos; ++up) dir.resize(dir.rfind('/'));
  return dir + "/baselines/lab" + std::to_string(lab) + "-runner";
}

}  // namespace

BaselineSession::BaselineSession(RunnerSession& runner, int lab)
    : runner_(runner), lab_(lab), saved_(runner.config()), program_(baseline_runner_path(lab)) {
  // Never beside the student's code: the caller ended it already (student_processes_ended());
  // this only makes sure, and starts the baseline runner lazily, on its first call.
  runner_.end_student_processes();
  RunnerConfig c;
  c.program = program_;
  c.timeout_seconds = saved_.timeout_seconds;
  c.harness_code = true;
  runner_.configure(c, lab);
}

BaselineSession::~BaselineSession() {
  runner_.end_student_processes();
  runner_.configure(saved_, lab_);
}

StudentTiming BaselineSession::time(int which, const MakeCall& make_call, const VerifyCall& verify,
                                    const StudentTimingConfig& cfg) const {
  if (program_.empty() || access(program_.c_str(), X_OK) != 0) {
    StudentTiming t;
    t.problem = "the harness's baseline runner " + program_ + " is not built (make builds it with the checker)";
    return t;
  }
  StudentTimingConfig checked_once = cfg;
  checked_once.check_later_batches = false;  // trusted: its warm-up's answers are checked, no more
  try {
    return time_lab_calls(
        runner_,
        [&](int rep) {
          LabCall call = make_call(rep);
          call.extra_scalar(which);
          return call;
        },
        verify, checked_once);
  } catch (const std::exception& e) {  // a runner that would not start, say
    runner_.end_student_processes();
    StudentTiming t;
    t.problem = e.what();
    return t;
  }
}

std::string batches_note(const StudentTiming& t) {
  return std::to_string(t.batches) + " batches of " + std::to_string(t.reps) + " calls";
}

bool baseline_timed(const StudentTiming& t, const std::string& name, TimingReport& report) {
  if (t.ok) return true;
  report.note += ". Not timed, " + name + ": " + t.problem;
  return false;
}

}  // namespace cudalab
