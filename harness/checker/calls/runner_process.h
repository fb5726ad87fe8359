// The kernel runner as the checker sees it: a child process started from the runner program
// (under an optional wrapper command: a debugger, the grader's sandbox), holding the other end
// of a socket on descriptor wire::kRunnerFd. One runner serves checks until it fails; then it
// is killed and the next check gets a fresh one.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "wire/protocol.h"

namespace cudalab {

struct RunnerConfig {
  std::string program;  // the runner binary
  std::vector<std::string> wrap;  // command words before it
  std::vector<std::string> extra_env;  // NAME=value added to the runner's environment
  double timeout_seconds = 0;  // per request (0: none)
  std::string schedule;  // CPU backend: sent with every request (protocol.h); "" in-order
  bool harness_code = false;  // the harness's own baseline runner (checker/timing/baseline_timing.h)
  // The runner limits its system calls once its runtime is up (runner/syscall_filter.h). Off
  // for the harness's own runner, and for a measurement (CUDALAB_SYSCALL_FILTER=off outside
  // the grader: tools/measure/runner_syscalls.sh).
  bool syscall_filter = true;
};

class RunnerProcess {
 public:
  // Starts the runner and reads its Hello. Throws std::runtime_error saying why it could not.
  explicit RunnerProcess(const RunnerConfig& config);
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  const wire::Hello& hello() const { return hello_; }
  int socket() const { return sock_; }
  int timeout_ms() const { return timeout_ms_; }
  // Kills the runner (its whole process group) and says how it had ended, if it had:
  // "was killed by signal 11 (Segmentation fault)", "exited with status 1", or "".
  // quitting: it was told to quit, so it (and a sandbox wrapping it, which empties its cgroup
  // before it exits) gets up to 10 s to end on its own before the signals.
  // Either way stop() returns only once no process of the runner's group is left, or 5 s after
  // SIGKILL (then group_outlived() says so).
  std::string stop(bool quitting = false);
  bool group_outlived() const { return group_outlived_; }

 private:
  pid_t pid_ = -1;
  bool group_outlived_ = false;
  int sock_ = -1;
  int timeout_ms_ = -1;
  wire::Hello hello_;
};

}  // namespace cudalab
