#include "runner_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace cudalab {

RunnerProcess::RunnerProcess(const RunnerConfig& config) {
  timeout_ms_ = config.timeout_seconds > 0 ? int(config.timeout_seconds * 1000) : -1;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::runtime_error(std::string("could not make a socket for the kernel runner: ") + std::strerror(errno));

  std::vector<std::string> words = config.wrap;
  words.push_back(config.program);
  words.push_back("--serve");
  if (!config.syscall_filter || config.harness_code) words.push_back("--no-syscall-filter");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  auto set_here = [&](const char* entry) {  // extra_env names it: that value, not the inherited one
    const char* eq = std::strchr(entry, '=');
    const size_t len = eq ? size_t(eq - entry) + 1 : std::strlen(entry);
    for (const auto& e : config.extra_env)
      if (e.compare(0, len, entry, len) == 0) return true;
    return false;
  };
  for (char** e = environ; *e; ++e) {
    // The verdict channel is the checker's alone; it was taken at start, but be sure.
    if (std::strncmp(*e, "CUDALAB_VERDICT_CHANNEL=", 24) == 0 || set_here(*e)) continue;
    env_strings.push_back(*e);
  }
  for (const auto& e : config.extra_env) env_strings.push_back(e);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(std::string("could not start the kernel runner: ") + std::strerror(errno));
  if (pid_ == 0) {
    setpgid(0, 0);  // its own process group: stop() kills everything it started
    // The runner's end on descriptor 3 (inheritable); every other descriptor of the checker
    // above 2 is close-on-exec or closed here.
    if (dup2(sv[1], wire::kRunnerFd) < 0) _exit(127);
    for (int fd = wire::kRunnerFd + 1; fd < 1024; ++fd) close(fd);
    execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "cudalab: could not run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid_, pid_);
  close(sv[1]);
  sock_ = sv[0];

  wire::Frame f;
  try {
    // Starting takes longer than a request (CUDA initializes): at least 60 s.
    const int start_ms = timeout_ms_ < 0 ? -1 : std::max(timeout_ms_, 60000);
    if (!wire::receive_frame(sock_, f, start_ms)) throw wire::ProtocolError("it did not start in time");
    if (f.type != wire::MessageType::Hello) throw wire::ProtocolError("it did not introduce itself");
    wire::Reader r(f.payload);
    hello_ = wire::decode_hello(r);
    if (hello_.version != wire::kVersion)
      throw wire::ProtocolError("it speaks protocol version " + std::to_string(hello_.version) + "; rebuild it (make)");
  } catch (const wire::ProtocolError& e) {
    std::string how = stop();
    throw std::runtime_error(std::string("the kernel runner ") + config.program + " did not start: " + e.what() +
                             (how.empty() ? "" : " (it " + how + ")"));
  }
}

RunnerProcess::~RunnerProcess() { stop(); }

static std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int s = WTERMSIG(status);
    return "was killed by signal " + std::to_string(s) + " (" + strsignal(s) + ")";
  }
  return "";
}

// Waits up to `ms` for the runner to end; true (with its status) when it did.
static bool reaped_within(pid_t pid, int ms, int& status) {
  for (int waited = 0;; waited += 5) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return false;
    if (waited >= ms) return false;
    usleep(5000);
  }
}

// Whether any process is left in process group pgid (a zombie counts until its parent reaps it).
static bool group_alive(pid_t pgid) { return kill(-pgid, 0) == 0 || errno == EPERM; }

std::string RunnerProcess::stop(bool quitting) {
  if (sock_ >= 0) {
    close(sock_);
    sock_ = -1;
  }
  if (pid_ <= 0) return "";
  std::string how;
  int status = 0;
  // A runner that has just died (or was told to quit) is reaped with its real status. One told
  // to quit gets longer: giving back a large GPU allocation, and a jail emptying its cgroup
  // before it exits, take a while, and a jail killed on the way leaves its cleaning undone.
  if (reaped_within(pid_, quitting ? 10000 : 200, status)) {
    how = describe_status(status);
  } else {
    // SIGTERM first: a sandbox wrapping the runner (the grader's jail) then removes what it
    // made; whatever still stands after 0.5 s gets SIGKILL.
    kill(-pid_, SIGTERM);
    kill(pid_, SIGTERM);
    if (!reaped_within(pid_, 500, status)) {
      kill(-pid_, SIGKILL);
      kill(pid_, SIGKILL);
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  kill(-pid_, SIGKILL);  // anything it left behind in its group
  // Gone, not only signalled: the checker's own timings (baselines, ceilings) come next.
  group_outlived_ = false;
  for (int waited = 0; group_alive(pid_); waited += 5) {
    if (waited >= 5000) {
      group_outlived_ = true;
      break;
    }
    usleep(5000);
  }
  pid_ = -1;
  return how;
}

}  // namespace cudalab
