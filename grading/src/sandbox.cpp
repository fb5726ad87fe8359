#include "sandbox.h"

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

#include "../../harness/core/report_channel.h"
#include "util.h"

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
  std::vector<const char*> hidden;  // RunSpec::hidden
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

// Runs in the process that becomes the program: limits, identity, descriptors, exec.
[[noreturn]] void become_program(const RunSpec& spec, const Prepared& p) {
  const Limits& L = spec.limits;
  set_limit(RLIMIT_AS, L.address_space_bytes);
  set_limit(RLIMIT_DATA, L.data_bytes);
  set_limit(RLIMIT_FSIZE, L.file_bytes);
  set_limit(RLIMIT_CPU, L.cpu_seconds);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (spec.run_as) {
    set_limit(RLIMIT_NPROC, L.processes);
    if (setgroups(0, nullptr) != 0 || setgid(spec.run_as->gid) != 0 || setuid(spec.run_as->uid) != 0)
      child_fail(p.status_w, "cannot switch to the unprivileged user");
  }
  // Changing credentials clears the parent-death signal, so it is set after.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
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

// Mounts for the namespace's processes only: a /proc of the new PID namespace (the CUDA
// driver reads /proc about its own process; seen on an H100: without it, CUDA initialisation
// fails with "OS call failed"), and an empty read-only tmpfs over each hidden folder. Nothing
// is mounted unless the mount namespace is made private first, so the grader's own mounts are
// never touched. Failures are not fatal: CPU-backend runs need neither.
void namespace_mounts(const Prepared& p) {
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return;
  mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  for (const char* dir : p.hidden)
    mount("tmpfs", dir, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555");
}

// PID 1 of the new namespace. The kernel drops any signal a namespace's init sends itself
// without a handler, so the program must not be init: its abort() would be ignored, and it
// would die of the SIGSEGV glibc falls back on. This init starts the program, reaps every
// process that ends (orphans come to it), and when the program ends hands its wait status
// up through `report_w` (init cannot die of that signal itself) and exits; the kernel then
// kills whatever is left in the namespace.
[[noreturn]] void namespace_init(const RunSpec& spec, const Prepared& p, int report_w) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  namespace_mounts(p);
  pid_t program = fork();
  if (program < 0) child_fail(p.status_w, "cannot fork");
  if (program == 0) become_program(spec, p);  // report_w closes at its exec
  // The program's copies of these are what the grader waits on, not init's.
  close(p.status_w);
  close(p.out_w);
  if (p.chan_w >= 0) close(p.chan_w);
  int st = 0;
  for (;;) {
    int s = 0;
    pid_t w = waitpid(-1, &s, 0);
    if (w == program) {
      st = s;
      break;
    }
    if (w < 0 && errno != EINTR) _exit(127);  // no children left: cannot happen while the program lives
  }
  (void)!write(report_w, &st, sizeof st);
  _exit(0);
}

// The forked child: a new session (so one kill reaches the whole group), then either the
// program itself or, with namespaces, new PID, network and mount namespaces whose init
// (namespace_init) starts the program: when that init dies, the kernel kills everything left
// in the namespace, even processes that left the group with setsid().
[[noreturn]] void child_main(const RunSpec& spec, const Prepared& p, pid_t grader) {
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != grader) _exit(127);  // the grader died before the line above
  if (!spec.new_namespaces) become_program(spec, p);

  if (unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS) != 0) child_fail(p.status_w, "cannot create namespaces");
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) child_fail(p.status_w, "cannot create a pipe");
  pid_t init = fork();
  if (init < 0) child_fail(p.status_w, "cannot fork");
  if (init == 0) {
    close(report[0]);
    namespace_init(spec, p, report[1]);
  }
  close(report[1]);
  close(p.status_w);
  int st = 0;
  while (waitpid(init, &st, 0) < 0 && errno == EINTR) {
  }
  // The program's status, when init could report it; else init's own (it failed to start it).
  int program_st = 0;
  if (read(report[0], &program_st, sizeof program_st) == ssize_t(sizeof program_st)) st = program_st;
  if (WIFSIGNALED(st)) {
    // Pass the program's fate up unchanged: die of the same signal.
    signal(WTERMSIG(st), SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    kill(getpid(), WTERMSIG(st));
    _exit(128 + WTERMSIG(st));
  }
  _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
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
    s += "[output truncated: " + std::to_string(output_bytes - output.size()) + " more bytes were printed and dropped]\n";
  }
  return s;
}

RunResult run_sandboxed(const RunSpec& spec) {
  RunResult r;
  const auto start = std::chrono::steady_clock::now();
  int out[2], status[2], chan[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0) {
    r.start_error = "cannot create pipes";
    return r;
  }
  std::vector<std::string> env = spec.env;
  Prepared p;
  if (spec.verdict_channel) {
    if (pipe2(chan, O_CLOEXEC) != 0) {
      for (int fd : {out[0], out[1], status[0], status[1]}) close(fd);
      r.start_error = "cannot create the verdict channel";
      return r;
    }
    r.secret = random_hex(32);
    // Somewhere in 3..62, not a fixed number; never the status pipe's descriptor, which the
    // child still needs after it has put the channel in place (to say that exec failed).
    do p.chan_target = 3 + int(random_u64() % 60);
    while (p.chan_target == status[1]);
    env.push_back(std::string(cudalab::kVerdictChannelVariable) + "=" + std::to_string(p.chan_target) + ":" +
                  r.secret);
  }
  for (const auto& a : spec.argv) p.argv.push_back(const_cast<char*>(a.c_str()));
  p.argv.push_back(nullptr);
  for (const auto& e : env) p.envp.push_back(const_cast<char*>(e.c_str()));
  p.envp.push_back(nullptr);
  for (const auto& dir : spec.hidden) p.hidden.push_back(dir.c_str());
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
  if (pid == 0) child_main(spec, p, grader);
  note_running(pid, true);
  close(out[1]);
  close(status[1]);
  if (chan[1] >= 0) close(chan[1]);

  // Exec succeeded when the status pipe closes with nothing in it.
  std::string start_msg;
  {
    char buf[256];
    ssize_t n;
    while ((n = read(status[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) start_msg.append(buf, size_t(n));
    close(status[0]);
  }

  set_nonblocking(out[0]);
  if (chan[0] >= 0) set_nonblocking(chan[0]);
  bool out_open = true, chan_open = chan[0] >= 0;
  const size_t chan_limit = 64 << 20;
  int wstatus = 0;
  bool exited = false;
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  while (!exited) {
    double left = spec.limits.wall_seconds - elapsed();
    if (left <= 0) {
      r.timed_out = true;
      killpg(pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
    pollfd fds[2];
    int nfds = 0;
    if (out_open) fds[nfds++] = {out[0], POLLIN, 0};
    if (chan_open) fds[nfds++] = {chan[0], POLLIN, 0};
    poll(fds, nfds_t(nfds), int(std::min(left * 1000, 100.0)) + 1);
    if (out_open) out_open = pump(out[0], r.output, spec.limits.output_keep_bytes, &r.output_bytes);
    if (chan_open) chan_open = pump(chan[0], r.channel, chan_limit, nullptr);
    pid_t w = waitpid(pid, &wstatus, WNOHANG);
    if (w == pid) exited = true;
  }
  if (!exited) {
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  }
  // Whatever it left behind in its group goes too, then the pipes are read to the end
  // (briefly: a straggler outside the group could hold them open).
  killpg(pid, SIGKILL);
  note_running(pid, false);
  const double drain_until = elapsed() + 1.0;
  while ((out_open || chan_open) && elapsed() < drain_until) {
    pollfd fds[2];
    int nfds = 0;
    if (out_open) fds[nfds++] = {out[0], POLLIN, 0};
    if (chan_open) fds[nfds++] = {chan[0], POLLIN, 0};
    poll(fds, nfds_t(nfds), 50);
    if (out_open) out_open = pump(out[0], r.output, spec.limits.output_keep_bytes, &r.output_bytes);
    if (chan_open) chan_open = pump(chan[0], r.channel, chan_limit, nullptr);
  }
  close(out[0]);
  if (chan[0] >= 0) close(chan[0]);

  r.seconds = elapsed();
  if (!start_msg.empty()) {
    r.start_error = start_msg;
    return r;
  }
  r.started = true;
  if (!r.timed_out) {
    if (WIFEXITED(wstatus)) r.exit_code = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) r.term_signal = WTERMSIG(wstatus);
  }
  return r;
}

bool namespaces_available() {
  static const bool ok = [] {
    if (geteuid() != 0) return false;
    pid_t pid = fork();
    if (pid == 0) _exit(unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS) == 0 ? 0 : 1);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return false;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }();
  return ok;
}

std::optional<Identity> lookup_user(const std::string& name) {
  passwd pw{}, *res = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &res) != 0 || !res) return std::nullopt;
  return Identity{pw.pw_uid, pw.pw_gid, name};
}

void kill_all_running() {
  std::lock_guard<std::mutex> lock(g_running_mutex);
  for (pid_t pg : g_running) {
    killpg(pg, SIGKILL);
    kill(pg, SIGKILL);
  }
}

}  // namespace grading
