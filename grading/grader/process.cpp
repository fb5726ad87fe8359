#include "process.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "checker/report/report_channel.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"

namespace grading {
namespace {

std::mutex g_running_mutex;
std::set<pid_t> g_running;  // process groups (== pid of the session leader we forked)

void note_running(pid_t pg, bool on) {
  std::lock_guard<std::mutex> lock(g_running_mutex);
  if (on)
    g_running.insert(pg);
  else
    g_running.erase(pg);
}

// Everything the child needs, prepared before fork: after fork in a threaded program only
// async-signal-safe calls are allowed, so no allocation happens there.
struct Prepared {
  std::vector<char*> argv, envp;
  int out_w = -1, chan_w = -1, status_w = -1, chan_target = -1;
};

void child_fail(int status_w, const char* what) {
  int e = errno;
  char buf[256];
  size_t n = 0;
  for (const char* p = what; *p && n < 200; ++p) buf[n++] = *p;
  const char* es = strerror(e);  // not strictly async-signal-safe, but reads a static table
  buf[n++] = ':';
  buf[n++] = ' ';
  for (const char* p = es; *p && n < 250; ++p) buf[n++] = *p;
  (void)!write(status_w, buf, n);
  _exit(127);
}

void set_limit(int resource, uint64_t value) {
  if (value == 0) return;
  rlimit r{rlim_t(value), rlim_t(value)};
  setrlimit(resource, &r);
}

// Runs in the process that becomes the program: limits, descriptors, exec. A jailed
// program gets its identity and isolation from cudalab-jail, which this execs.
[[noreturn]] void become_program(const RunSpec& spec, const Prepared& p, pid_t grader) {
  setsid();  // a group of its own, so that one kill reaches everything it started
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != grader) _exit(127);  // the grader died before the line above
  const Limits& L = spec.limits;
  set_limit(RLIMIT_AS, L.address_space_bytes);
  set_limit(RLIMIT_DATA, L.data_bytes);
  set_limit(RLIMIT_FSIZE, L.file_bytes);
  set_limit(RLIMIT_CPU, L.cpu_seconds);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (chdir(spec.cwd.c_str()) != 0) child_fail(p.status_w, "cannot enter the working folder");

  int devnull = open("/dev/null", O_RDONLY);
  if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(p.out_w, 1) < 0 || dup2(p.out_w, 2) < 0)
    child_fail(p.status_w, "cannot set up standard input and output");
  if (p.chan_w >= 0 && dup2(p.chan_w, p.chan_target) < 0) child_fail(p.status_w, "cannot set up the channel");
  // Every other descriptor the grader holds (other students' pipes included) closes at exec.
  syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
  if (p.chan_w >= 0) fcntl(p.chan_target, F_SETFD, 0);
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvpe(p.argv[0], p.argv.data(), p.envp.data());
  child_fail(p.status_w, "cannot start the program");
  _exit(127);
}

// A private folder for the jails' reports (written by the jail as root, read by the grader).
std::string jail_report_path() {
  static const PrivateTempDir dir("cudalab-jail-reports");
  return (dir.path() / (random_hex(8) + ".json")).string();
}

// The jail's command line for `spec`: its limits and environment from the RunSpec's.
std::vector<std::string> jailed_argv(const RunSpec& spec, const std::vector<std::string>& env, int chan_target,
                                     const std::string& report) {
  JailSpec j = *spec.jail;
  const Limits& L = spec.limits;
  j.chdir = spec.cwd.string();
  // The jail's own clock is the one that counts; the grader's, a little later, is a backstop.
  j.wall_seconds = L.wall_seconds;
  if (!j.memory_mb) j.memory_mb = std::max(L.address_space_bytes, L.data_bytes) >> 20;
  if (!j.pids) j.pids = L.processes;
  if (!j.file_mb && L.file_bytes) j.file_mb = std::max<uint64_t>(1, L.file_bytes >> 20);
  if (chan_target >= 0) j.keep_fds.push_back(chan_target);
  for (const auto& e : env)
    if (e.rfind("PATH=", 0) != 0) j.env.push_back(e);
  j.report_isolation = report;
  j.quiet = true;
  std::vector<std::string> argv = jail_argv(spec.jail_program, j);
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  return argv;
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is there; false at end of file.
bool pump(int fd, std::string& keep, size_t keep_limit, uint64_t* total) {
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      if (total) *total += uint64_t(n);
      if (keep.size() < keep_limit) keep.append(buf, std::min(size_t(n), keep_limit - keep.size()));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return true;  // EAGAIN: nothing more for now
  }
}

}  // namespace

std::string RunResult::describe() const {
  char buf[160];
  if (!started) return "could not start: " + start_error;
  if (timed_out) {
    std::snprintf(buf, sizeof buf, "was stopped after the %.0f s time limit", seconds);
    return buf;
  }
  if (term_signal) {
    const char* name = strsignal(term_signal);
    std::snprintf(buf, sizeof buf, "was killed by signal %d (%s)", term_signal, name ? name : "?");
    std::string s = buf;
    if (term_signal == SIGXCPU) s += ": it used up its CPU time";
    if (term_signal == SIGXFSZ) s += ": it wrote a file larger than allowed";
    return s;
  }
  return "exited with status " + std::to_string(exit_code);
}

std::string RunResult::output_with_note() const {
  std::string s = output;
  if (output_truncated()) {
    if (!s.empty() && s.back() != '\n') s += '\n';
    s += "[output truncated: " + std::to_string(output_bytes - output.size()) +
         " more bytes were printed and dropped]\n";
  }
  return s;
}

namespace {

// The program's output and verdict channel, read as they come: each kept up to its limit.
struct Streams {
  int out = -1, chan = -1;
  bool out_open = false, chan_open = false;
  static constexpr size_t kChannelLimit = 64 << 20;

  // Waits up to `timeout_ms` for either to have something, then reads what is there.
  void pump_once(const RunSpec& spec, RunResult& r, int timeout_ms) {
    pollfd fds[2];
    int nfds = 0;
    if (out_open) fds[nfds++] = {out, POLLIN, 0};
    if (chan_open) fds[nfds++] = {chan, POLLIN, 0};
    poll(fds, nfds_t(nfds), timeout_ms);
    if (out_open) out_open = pump(out, r.output, spec.limits.output_keep_bytes, &r.output_bytes);
    if (chan_open) chan_open = pump(chan, r.channel, kChannelLimit, nullptr);
  }
};

// The pipes and the environment of one run: the output, the exec status, and the verdict channel
// (a pipe and a fresh secret) when asked for. False, with r.start_error, when they cannot be made.
bool make_pipes(const RunSpec& spec, RunResult& r, Prepared& p, int out[2], int status[2], int chan[2],
                std::vector<std::string>& env) {
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0) {
    r.start_error = "cannot create pipes";
    return false;
  }
  if (!spec.verdict_channel) return true;
  if (pipe2(chan, O_CLOEXEC) != 0) {
    for (int fd : {out[0], out[1], status[0], status[1]}) close(fd);
    r.start_error = "cannot create the verdict channel";
    return false;
  }
  r.secret = random_hex(32);
  // Somewhere in 3..62, not a fixed number; never the status pipe's descriptor, which the
  // child still needs after it has put the channel in place (to say that exec failed).
  do p.chan_target = 3 + int(random_u64() % 60);
  while (p.chan_target == status[1]);
  env.push_back(std::string(cudalab::kVerdictChannelVariable) + "=" + std::to_string(p.chan_target) + ":" + r.secret);
  return true;
}

// Exec succeeded when the status pipe closes with nothing in it; else what the child said.
std::string read_start_message(int fd) {
  std::string start_msg;
  char buf[256];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) start_msg.append(buf, size_t(n));
  close(fd);
  return start_msg;
}

// Reads the streams until the program exits or `wall` seconds have passed since `start` (then it
// is killed: r.timed_out); then whatever it left in its group goes too, and the pipes are read to
// the end (briefly: a straggler outside the group could hold them open). Returns its wait status.
int wait_and_read(pid_t pid, const RunSpec& spec, Streams& io, RunResult& r, double wall,
                  const std::chrono::steady_clock::time_point& start) {
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int wstatus = 0;
  bool exited = false;
  while (!exited) {
    const double left = wall - elapsed();
    if (left <= 0) {
      r.timed_out = true;
      killpg(pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
    io.pump_once(spec, r, int(std::min(left * 1000, 100.0)) + 1);
    exited = waitpid(pid, &wstatus, WNOHANG) == pid;
  }
  if (!exited)
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  killpg(pid, SIGKILL);
  note_running(pid, false);
  const double drain_until = elapsed() + 1.0;
  while ((io.out_open || io.chan_open) && elapsed() < drain_until) io.pump_once(spec, r, 50);
  close(io.out);
  if (io.chan >= 0) close(io.chan);
  return wstatus;
}

// What happened in a jail comes from the jail's report (its fields), never from what the
// program printed or returned: an exit status of 124 is only a number.
void apply_jail_report(RunResult& r, const std::string& report) {
  r.isolation = read_file(report, 4096).value_or("");
  ::unlink(report.c_str());
  const nlohmann::json j = nlohmann::json::parse(r.isolation, nullptr, false);
  const bool readable = j.is_object();
  if (readable && j.value("timed_out", false)) {
    r.timed_out = true;
    r.exit_code = -1;
  }
  r.memory_limit_hit = readable && j.value("memory_limit_reached", false);
  if ((readable && j.value("setup_failed", false)) || (!readable && !r.timed_out)) {
    r.started = false;
    r.start_error = "the sandbox could not be set up: " + r.output.substr(0, 400);
  }
}

}  // namespace

RunResult run_sandboxed(const RunSpec& spec) {
  RunResult r;
  const auto start = std::chrono::steady_clock::now();
  int out[2], status[2], chan[2] = {-1, -1};
  std::vector<std::string> env = spec.env;
  Prepared p;
  if (!make_pipes(spec, r, p, out, status, chan, env)) return r;
  const std::string report = spec.jail ? jail_report_path() : "";
  const std::vector<std::string> argv = spec.jail ? jailed_argv(spec, env, p.chan_target, report) : spec.argv;
  for (const auto& a : argv) p.argv.push_back(const_cast<char*>(a.c_str()));
  p.argv.push_back(nullptr);
  for (const auto& e : env) p.envp.push_back(const_cast<char*>(e.c_str()));
  p.envp.push_back(nullptr);
  p.out_w = out[1];
  p.chan_w = chan[1];
  p.status_w = status[1];

  const pid_t grader = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    r.start_error = "fork failed";
    for (int fd : {out[0], out[1], status[0], status[1], chan[0], chan[1]})
      if (fd >= 0) close(fd);
    return r;
  }
  if (pid == 0) become_program(spec, p, grader);
  note_running(pid, true);
  close(out[1]);
  close(status[1]);
  if (chan[1] >= 0) close(chan[1]);
  const std::string start_msg = read_start_message(status[0]);

  Streams io;
  io.out = out[0];
  io.chan = chan[0];
  io.out_open = true;
  io.chan_open = chan[0] >= 0;
  set_nonblocking(io.out);
  if (io.chan_open) set_nonblocking(io.chan);
  // A jail keeps its own clock and kills everything at it; the grader's waits a little more.
  const int wstatus = wait_and_read(pid, spec, io, r, spec.limits.wall_seconds + (spec.jail ? 10 : 0), start);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!start_msg.empty()) {
    r.start_error = start_msg;
    return r;
  }
  r.started = true;
  if (!r.timed_out) {
    if (WIFEXITED(wstatus)) r.exit_code = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) r.term_signal = WTERMSIG(wstatus);
  }
  if (spec.jail) apply_jail_report(r, report);
  return r;
}

void kill_all_running() {
  std::lock_guard<std::mutex> lock(g_running_mutex);
  for (pid_t pg : g_running) {
    killpg(pg, SIGKILL);
    kill(pg, SIGKILL);
  }
}

}  // namespace grading
