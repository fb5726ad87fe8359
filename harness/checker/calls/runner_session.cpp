#include "runner_session.h"

#include <stdexcept>

namespace cudalab {

void RunnerSession::configure(const RunnerConfig& config, int lab) {
  config_ = config;
  lab_ = lab;
}

RunnerProcess& RunnerSession::runner() {
  if (!runner_) {
    auto r = std::make_unique<RunnerProcess>(config_);
    if (int(r->hello().lab) != lab_)
      throw std::runtime_error("the kernel runner " + config_.program + " was built for lab " +
                               std::to_string(r->hello().lab) + ", not lab " + std::to_string(lab_));
    runner_ = std::move(r);
  }
  return *runner_;
}

std::string RunnerSession::discard() {
  if (!runner_) return "";
  std::string how = runner_->stop();
  runner_.reset();
  return how;
}

bool RunnerSession::end_student_processes() {
  if (!runner_) return true;
  bool told = true;
  try {
    wire::send_frame(runner_->socket(), wire::MessageType::Quit, "");
  } catch (const wire::ProtocolError&) {
    told = false;
  }
  runner_->stop(told);
  const bool gone = !runner_->group_outlived();
  runner_.reset();
  return gone;
}

void RunnerSession::require_no_student_process(const std::string& what) const {
  if (runner_)
    throw std::logic_error("the checker's own timing (" + what +
                           ") would run beside the student's kernel runner: end_student_processes() first");
}

}  // namespace cudalab
