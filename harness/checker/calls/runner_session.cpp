#include "runner_session.h"

#include <stdexcept>

namespace cudalab {
namespace {
RunnerConfig g_config;
int g_lab = 0;
std::unique_ptr<RunnerProcess> g_runner;
}  // namespace

void runner_configure(const RunnerConfig& config, int lab) {
  g_config = config;
  g_lab = lab;
}

const RunnerConfig& runner_config() { return g_config; }

RunnerProcess& runner() {
  if (!g_runner) {
    auto r = std::make_unique<RunnerProcess>(g_config);
    if (int(r->hello().lab) != g_lab)
      throw std::runtime_error("the kernel runner " + g_config.program + " was built for lab " +
                               std::to_string(r->hello().lab) + ", not lab " + std::to_string(g_lab));
    g_runner = std::move(r);
  }
  return *g_runner;
}

std::string runner_discard() {
  if (!g_runner) return "";
  std::string how = g_runner->stop();
  g_runner.reset();
  return how;
}

void runner_finish() { end_student_processes(); }

bool end_student_processes() {
  if (!g_runner) return true;
  bool told = true;
  try {
    wire::send_frame(g_runner->socket(), wire::MessageType::Quit, "");
  } catch (const wire::ProtocolError&) {
    told = false;
  }
  g_runner->stop(told);
  const bool gone = !g_runner->group_outlived();
  g_runner.reset();
  return gone;
}

void require_no_student_process(const std::string& what) {
  if (g_runner)
    throw std::logic_error("the checker's own timing (" + what +
                           ") would run beside the student's kernel runner: end_student_processes() first");
}

}  // namespace cudalab
