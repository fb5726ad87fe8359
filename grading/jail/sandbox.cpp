// The setup of cudalab-jail. Three processes, each with one job:
//
//   supervisor  the jail itself: makes the job's cgroup, starts init in a new PID namespace,
//               keeps the wall clock, and when anything ends (the command, the clock, a signal
//               to the jail) kills the whole cgroup and removes it (without namespaces, also
//               every process below it: it is their subreaper). Runs in the caller's world.
//   init        PID 1 of the new namespaces: builds the file-system view (a fresh tmpfs root
//               holding only what the spec names), starts the command and reaps orphans. When
//               the command ends it hands the status up and exits; the kernel then kills
//               everything left in the PID namespace, and the IPC namespace's segments, the
//               mounts and the tmpfs go with their last process.
//   command     drops to the student's identity, with no new privileges, and execs.
//
// Nothing here is allowed to fail quietly: a part of the isolation that cannot be had either
// stops the jail (exit 125) or, where a fallback exists, is named in the isolation report.
#include "sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cgroup.h"

namespace grading {
namespace {

// The new root is built on a tmpfs mounted over /tmp in the private mount namespace (a place
// that always exists); the sources of binds are opened first, so they stay reachable. In a
// chroot whose root is no mount point, over a mount inside it instead (private_root_base).
const char* kNewRoot = "/tmp";
const char* kSystemDirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"};
const char* kDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};

[[noreturn]] void fail(int status_w, const std::string& what) {
  const std::string msg = what + (errno ? std::string(": ") + std::strerror(errno) : std::string());
  (void)!::write(status_w, msg.data(), msg.size());
  _exit(kJailSetupFailed);
}

struct Source {
  std::string path;  // where it appears inside (the same path as outside)
  int fd = -1;  // opened O_PATH before the root was covered
  bool writable = false, device = false;
};

// Opens a bind source without following any symbolic link on the way: a student who owns a
// folder on the path could otherwise point the bind somewhere else.
int open_no_symlinks(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return int(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
}

void make_parents(const std::string& path) {
  for (size_t at = 1; (at = path.find('/', at)) != std::string::npos; ++at) ::mkdir(path.substr(0, at).c_str(), 0755);
}

// A mount point inside the new root shaped like the source (folder or file).
void make_mount_point(const std::string& target, int source_fd) {
  make_parents(target);
  struct stat st {};
  ::fstat(source_fd, &st);
  if (S_ISDIR(st.st_mode))
    ::mkdir(target.c_str(), 0755);
  else
    ::close(::open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

bool set_attr(const std::string& target, uint64_t attrs, bool recursive) {
  mount_attr a{};
  a.attr_set = attrs;
  if (::syscall(SYS_mount_setattr, AT_FDCWD, target.c_str(), recursive ? AT_RECURSIVE : 0, &a, sizeof a) == 0)
    return true;
  // Kernels before 5.12: the top mount only.
  unsigned long flags = MS_BIND | MS_REMOUNT | ((attrs & MOUNT_ATTR_RDONLY) ? MS_RDONLY : 0) |
                        ((attrs & MOUNT_ATTR_NOSUID) ? MS_NOSUID : 0) | ((attrs & MOUNT_ATTR_NODEV) ? MS_NODEV : 0);
  return ::mount(nullptr, target.c_str(), nullptr, flags, nullptr) == 0;
}

void bind_source(int status_w, const std::string& root, const Source& s) {
  const std::string target = root + s.path;
  make_mount_point(target, s.fd);
  const std::string via = "/proc/self/fd/" + std::to_string(s.fd);
  if (::mount(via.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
    fail(status_w, "cannot show " + s.path);
  // Private at once: a bind of a shared mount would be its peer, and what is mounted inside it
  // (a --hide) would show on the host. (Already so where the whole tree was made private.)
  if (::mount(nullptr, target.c_str(), nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    fail(status_w, "cannot make " + s.path + " private");
  // No set-uid programs, ever; no device nodes except the ones named.
  uint64_t attrs = MOUNT_ATTR_NOSUID | (s.writable ? 0 : MOUNT_ATTR_RDONLY) | (s.device ? 0 : MOUNT_ATTR_NODEV);
  if (!set_attr(target, attrs, true)) fail(status_w, "cannot make " + s.path + " read-only");
}

void mount_tmpfs(int status_w, const std::string& target, const std::string& options, unsigned long flags) {
  make_parents(target + "/");
  if (::mount("tmpfs", target.c_str(), "tmpfs", flags, options.c_str()) != 0)
    fail(status_w, "cannot mount a tmpfs on " + target);
}

// Everything init needs, opened or made before the root is covered.
struct Plan {
  const JailSpec* spec = nullptr;
  std::vector<Source> sources;
  std::vector<std::string> symlinks;  // system dirs that are links (/bin -> usr/bin)
  std::vector<char*> argv, envp;
  bool namespaces = true;
  // Where the new root's tmpfs goes: kNewRoot, or in a chroot whose root is no mount point, a
  // mount inside it (the root is then entered with chroot: pivot_root needs a mount point).
  std::string root_base = kNewRoot;
  bool in_chroot = false;
  std::string degraded_because;  // why there are no namespaces, when there are none
  bool rlimit_memory = false, rlimit_pids = false;  // the cgroup could not hold these
  bool pin_affinity = false;  // no cpuset: the cores by affinity instead
  int status_w = -1, go_r = -1, report_w = -1;
};

void open_sources(Plan& p) {
  const JailSpec& s = *p.spec;
  auto add = [&](const std::string& path, bool writable, bool device, bool required) {
    int fd = open_no_symlinks(path);
    if (fd < 0) {
      if (required) fail(p.status_w, "cannot open " + path + " (it must exist and its path hold no symbolic link)");
      return;
    }
    p.sources.push_back({path, fd, writable, device});
  };
  for (const char* dir : kSystemDirs) {
    struct stat st {};
    if (::lstat(dir, &st) != 0) continue;
    if (S_ISLNK(st.st_mode))
      p.symlinks.push_back(dir);
    else
      add(dir, false, false, false);
  }
  for (const char* dev : kDevices) add(dev, false, true, false);
  for (const auto& dev : s.devices) add(dev, false, true, true);
  if (s.gpu) {
    glob_t g{};
    if (::glob("/dev/nvidia*", 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) add(g.gl_pathv[i], false, true, false);
    ::globfree(&g);
    add("/sys", false, false, false);
  }
  for (const auto& path : s.ro_bind) add(path, false, false, true);
  for (const auto& path : s.bind) add(path, true, false, true);
  // Parents before children: a bind inside another lands on top of it.
  std::stable_sort(p.sources.begin(), p.sources.end(),
                   [](const Source& a, const Source& b) { return a.path < b.path; });
}

// Whether / is a mount point: not in a chroot made of a plain folder. (Kernels before 5.8
// cannot say: they are taken at their word, as before.)
bool root_is_mount_point() {
  struct statx sx {};
  if (::statx(AT_FDCWD, "/", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) != 0) return true;
  if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)) return true;
  return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

// The mount points this process sees, from /proc/self/mountinfo (its fifth field, with the
// kernel's octal escapes for spaces and such undone); empty when /proc is not there.
std::vector<std::string> visible_mount_points() {
  std::vector<std::string> points;
  FILE* f = std::fopen("/proc/self/mountinfo", "re");
  if (!f) return points;
  char line[8192];
  while (std::fgets(line, sizeof line, f)) {
    char raw[4096];
    if (std::sscanf(line, "%*s %*s %*s %*s %4095s", raw) != 1) continue;
    std::string point;
    for (size_t i = 0; raw[i]; ++i) {
      if (raw[i] == '\\' && raw[i + 1] && raw[i + 2] && raw[i + 3]) {
        point += char((raw[i + 1] - '0') * 64 + (raw[i + 2] - '0') * 8 + (raw[i + 3] - '0'));
        i += 3;
      } else {
        point += raw[i];
      }
    }
    points.push_back(point);
  }
  std::fclose(f);
  return points;
}

// Where the new root can be built. Usually on a tmpfs over /tmp, after the whole tree is made
// private. In a chroot whose root is a plain folder, / cannot be made private (EINVAL) and
// pivot_root refuses it: a tmpfs stacked on a mount inside the chroot (made private first, so
// that nothing mounted on it shows on the host) holds the root instead, entered with chroot.
// Returns that mount ("" : the usual way), or nullopt when there is none (no /proc, no mount).
std::optional<std::string> private_root_base() {
  if (root_is_mount_point()) return std::string();
  const std::vector<std::string> points = visible_mount_points();
  auto seen = [&](const std::string& p) { return std::find(points.begin(), points.end(), p) != points.end(); };
  if (!seen("/proc")) return std::nullopt;  // binds go through /proc/self/fd
  for (const char* preferred : {"/tmp", "/dev/shm", "/run", "/var/tmp", "/dev", "/mnt"})
    if (seen(preferred)) return std::string(preferred);
  for (const auto& p : points) {
    struct stat st {};
    if (p != "/" && p != "/proc" && p.rfind("/proc/", 0) != 0 && p.rfind("/sys", 0) != 0 &&
        ::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return p;
  }
  return std::nullopt;
}

// In init, in its new mount namespace: the file system the command will see.
void build_root(Plan& p) {
  const JailSpec& s = *p.spec;
  const int w = p.status_w;
  if (!p.in_chroot) {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail(w, "cannot make the mounts private");
  } else if (::mount(nullptr, p.root_base.c_str(), nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    fail(w, "cannot make " + p.root_base + " private (in a chroot)");
  }
  open_sources(p);
  mount_tmpfs(w, p.root_base, "size=16m,mode=0755", MS_NOSUID | MS_NODEV);
  const std::string R = p.root_base;
  for (const auto& link : p.symlinks) {
    char to[4096];
    ssize_t n = ::readlink(link.c_str(), to, sizeof to - 1);
    if (n > 0 && ::symlink(std::string(to, size_t(n)).c_str(), (R + link).c_str()) != 0) fail(w, "cannot link " + link);
  }
  // Private scratch space first, so that a folder bound below /tmp lands on top of it.
  const std::string tmp_opts = "size=" + std::to_string(s.tmp_mb) + "m,mode=1777";
  for (const char* t : {"/tmp", "/var/tmp", "/dev/shm"}) mount_tmpfs(w, R + t, tmp_opts, MS_NOSUID | MS_NODEV);
  for (const auto& src : p.sources) bind_source(w, R, src);
  // Working folders of the command's own, size-limited like /tmp, after the binds (on top).
  for (const auto& path : s.scratch)
    mount_tmpfs(w, R + path,
                "size=" + std::to_string(s.tmp_mb) + "m,mode=0700,uid=" + std::to_string(s.uid) +
                    ",gid=" + std::to_string(s.gid),
                MS_NOSUID | MS_NODEV);
  for (const auto& path : s.hide) {
    struct stat st {};
    if (::lstat((R + path).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      if (::mount("tmpfs", (R + path).c_str(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=4k,mode=0555") != 0)
        fail(w, "cannot hide " + path);
  }
  for (const auto& [name, to] : {std::pair{"/dev/fd", "/proc/self/fd"},
                                 {"/dev/stdin", "/proc/self/fd/0"},
                                 {"/dev/stdout", "/proc/self/fd/1"},
                                 {"/dev/stderr", "/proc/self/fd/2"}})
    if (::symlink(to, (R + name).c_str()) != 0) continue;  // a convenience: a command without them still runs
  make_parents(R + "/proc/");
  if (::mount("proc", (R + "/proc").c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    fail(w, "cannot mount /proc");
  for (auto& src : p.sources) ::close(src.fd);

  if (p.in_chroot) {
    // The old root stays in this namespace, out of reach: the command has no capability to
    // chroot again (its own uid, no new privileges), and its /proc is its own PID namespace's.
    if (::chdir(R.c_str()) != 0 || ::chroot(".") != 0 || ::chdir("/") != 0) fail(w, "cannot enter the new root");
  } else {
    if (::chdir(R.c_str()) != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0) fail(w, "cannot enter the new root");
    if (::umount2(".", MNT_DETACH) != 0 || ::chdir("/") != 0) fail(w, "cannot leave the old root");
  }
  if (!set_attr("/", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false))
    fail(w, "cannot make / read-only");
  if (::sethostname("cudalab", 7) != 0) return;  // a name only: the UTS namespace is the isolation
}

// The command's CPU affinity: the cores of `list` ("4-15", "0-3,8"), where no cgroup cpuset
// holds them (JailSpec::cpu_list).
void pin_to_cores(int w, const std::string& list) {
  const std::optional<std::vector<int>> cores = parse_cpu_list(list);
  if (!cores) fail(w, "--cpu-list '" + list + "': write cores as 4-15 or 0-3,8");
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : *cores) CPU_SET(c, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0) fail(w, "cannot keep the command to cores " + list);
}

#if defined(__x86_64__)
#define CUDALAB_NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CUDALAB_NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

// Where the cores are held by affinity alone, the command must not widen it: sched_setaffinity
// fails with EPERM, and so does every system call made through another architecture's table
// (x86-64's int 0x80 reaches the i386 numbers, where this filter's would not match).
void forbid_affinity_changes(int w) {
#ifdef CUDALAB_NATIVE_ARCH
  sock_filter filter[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
                          BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CUDALAB_NATIVE_ARCH, 1, 0),
                          BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                          BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
                          BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_setaffinity, 0, 1),
                          BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                          BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
    fail(w, "cannot keep the command from leaving its cores");
#else
  fail(w, "--cpu-list without a cgroup cpuset is not supported on this architecture");
#endif
}

void set_limit(int resource, uint64_t value) {
  rlimit r{rlim_t(value), rlim_t(value)};
  ::setrlimit(resource, &r);
}

// The command: limits, identity, descriptors, exec. Never returns.
[[noreturn]] void become_command(const Plan& p) {
  const JailSpec& s = *p.spec;
  const int w = p.status_w;
  set_limit(RLIMIT_CORE, 0);
  if (s.file_mb) set_limit(RLIMIT_FSIZE, s.file_mb << 20);
  if (p.pin_affinity) pin_to_cores(w, s.cpu_list);
  // Fallbacks where the cgroup could not hold the limit: per process, and per uid.
  if (p.rlimit_memory && s.memory_mb) set_limit(RLIMIT_DATA, s.memory_mb << 20);
  if (p.rlimit_pids && s.pids) set_limit(RLIMIT_NPROC, s.pids);
  if (::setgroups(0, nullptr) != 0 || ::setresgid(s.gid, s.gid, s.gid) != 0 || ::setresuid(s.uid, s.uid, s.uid) != 0)
    fail(w, "cannot switch to uid " + std::to_string(s.uid));
  if (s.uid != 0 && ::setuid(0) == 0) fail(w, "the identity did not drop");
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (p.pin_affinity) forbid_affinity_changes(w);  // after NO_NEW_PRIVS, which a filter needs
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the identity change, which clears it
  if (::chdir(s.chdir.c_str()) != 0) fail(w, "cannot enter " + s.chdir);

  // Descriptors: 0-3 and the kept ones stay open across exec; every other one closes then.
  std::set<int> keep(s.keep_fds.begin(), s.keep_fds.end());
  keep.insert(3);
  int from = 3;
  for (int fd : keep) {
    if (fd > from) ::syscall(SYS_close_range, unsigned(from), unsigned(fd - 1), CLOSE_RANGE_CLOEXEC);
    if (::fcntl(fd, F_GETFD) >= 0) ::fcntl(fd, F_SETFD, 0);
    from = std::max(from, fd + 1);
  }
  ::syscall(SYS_close_range, unsigned(from), ~0u, CLOSE_RANGE_CLOEXEC);
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execvpe(p.argv[0], p.argv.data(), p.envp.data());
  fail(w, std::string("cannot start ") + p.argv[0]);
}

// PID 1: the kernel drops signals a namespace's init sends itself, so the command must not
// be init (its abort() would not kill it); init starts it, reaps every orphan, and reports
// the command's wait status on report_w.
[[noreturn]] void init_main(Plan& p) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  char go = 0;
  if (::read(p.go_r, &go, 1) != 1) _exit(kJailSetupFailed);  // the supervisor died or gave up
  if (p.namespaces) {
    if (::unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) != 0)
      fail(p.status_w, "cannot create namespaces");
    build_root(p);
  }
  pid_t command = ::fork();
  if (command < 0) fail(p.status_w, "cannot fork");
  if (command == 0) become_command(p);
  ::close(p.status_w);
  for (;;) {
    int st = 0;
    pid_t w = ::waitpid(-1, &st, 0);
    if (w == command) {
      (void)!::write(p.report_w, &st, sizeof st);
      _exit(0);
    }
    if (w < 0 && errno != EINTR) _exit(kJailSetupFailed);
  }
}

// Without a PID namespace: every process left below this one (a subreaper, so whatever the
// command detached, with setsid or double forks, was handed back here), killed and reaped
// until none is left; children of the killed come back in their turn.
void end_descendants() {
  const pid_t self = ::getpid();
  for (int round = 0; round < 2000; ++round) {
    bool any = false;
    if (DIR* d = ::opendir("/proc")) {
      while (dirent* e = ::readdir(d)) {
        const pid_t pid = pid_t(std::atoi(e->d_name));
        if (pid <= 0) continue;
        char path[64], stat[512];
        std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        const ssize_t n = ::read(fd, stat, sizeof stat - 1);
        ::close(fd);
        if (n <= 0) continue;
        stat[n] = 0;
        const char* after_name = std::strrchr(stat, ')');  // "pid (name) state ppid ..."
        char state = 0;
        int ppid = 0;
        if (after_name && std::sscanf(after_name + 1, " %c %d", &state, &ppid) == 2 && ppid == int(self)) {
          ::kill(pid, SIGKILL);
          any = true;
        }
      }
      ::closedir(d);
    }
    while (::waitpid(-1, nullptr, WNOHANG) > 0) any = true;
    if (!any) return;
    ::usleep(5000);
  }
}

double now_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

}  // namespace

std::vector<std::string> jail_argv(const std::string& jail_program, const JailSpec& s) {
  std::vector<std::string> a = {jail_program, "--uid", std::to_string(s.uid), "--gid", std::to_string(s.gid)};
  auto opt = [&](const char* name, const std::string& v) { a.insert(a.end(), {name, v}); };
  for (const auto& p : s.bind) opt("--bind", p);
  for (const auto& p : s.ro_bind) opt("--ro-bind", p);
  for (const auto& p : s.hide) opt("--hide", p);
  for (const auto& p : s.scratch) opt("--scratch", p);
  for (const auto& p : s.devices) opt("--dev", p);
  if (s.gpu) a.push_back("--gpu");
  opt("--chdir", s.chdir);
  opt("--tmp-mb", std::to_string(s.tmp_mb));
  if (s.memory_mb) opt("--memory-mb", std::to_string(s.memory_mb));
  if (s.pids) opt("--pids", std::to_string(s.pids));
  if (s.cpu_weight) opt("--cpu-weight", std::to_string(s.cpu_weight));
  if (s.cpus > 0) opt("--cpus", std::to_string(s.cpus));
  if (!s.cpu_list.empty()) opt("--cpu-list", s.cpu_list);
  if (s.wall_seconds > 0) opt("--wall", std::to_string(s.wall_seconds));
  if (s.file_mb) opt("--file-mb", std::to_string(s.file_mb));
  for (int fd : s.keep_fds) opt("--keep-fd", std::to_string(fd));
  for (const auto& e : s.env) opt("--env", e);
  if (s.allow_degraded) a.push_back("--allow-degraded");
  if (!s.report_isolation.empty()) opt("--report-isolation", s.report_isolation);
  if (s.quiet) a.push_back("--quiet");
  if (s.die_with_parent) a.push_back("--die-with-parent");
  a.push_back("--");
  return a;
}

namespace {

void say(const std::string& line) { std::fprintf(stderr, "cudalab-jail: %s\n", line.c_str()); }

// The command's environment: nothing of the caller's but what is named.
std::vector<std::string> jail_environment(const JailSpec& spec) {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8"};
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) env.push_back(std::string("CUDA_VISIBLE_DEVICES=") + v);
  for (const auto& e : spec.env) {
    const std::string name = e.substr(0, e.find('=') + 1);
    env.erase(std::remove_if(env.begin(), env.end(), [&](const std::string& x) { return x.rfind(name, 0) == 0; }),
              env.end());
    env.push_back(e);
  }
  return env;
}

// A private root where one can be built (a chroot's own mounts included) and a PID namespace;
// else, as where namespaces are refused, only with --allow-degraded (p.namespaces false, and
// why). False, said, when the jail cannot start.
bool choose_isolation(const JailSpec& spec, Plan& p) {
  if (const auto base = private_root_base(); !base) {
    if (!spec.allow_degraded) {
      say("cannot build a private root: / is not a mount point (a chroot?) and no mount inside it (such as /tmp or "
          "/dev, with /proc) can hold one; --allow-degraded runs without namespaces");
      return false;
    }
    p.namespaces = false;
    p.degraded_because = "no private root: / is not a mount point and no mount inside it can hold one";
  } else if (!base->empty()) {
    p.root_base = *base;
    p.in_chroot = true;
  }
  if (p.namespaces && ::unshare(CLONE_NEWPID) != 0) {
    if (!spec.allow_degraded) {
      say(std::string("cannot create a PID namespace (") + std::strerror(errno) +
          "); --allow-degraded runs without namespaces");
      return false;
    }
    p.namespaces = false;
    p.degraded_because = std::string("no PID namespace: ") + std::strerror(errno);
  }
  return true;
}

// What isolation the command got, for the caller (the grader reads fields, people read it too).
nlohmann::json isolation_report(const JailSpec& spec, const Plan& p, const JobCgroup& cgroup, bool in_cgroup) {
  nlohmann::json j;
  j["level"] = !p.namespaces ? "degraded" : (p.rlimit_memory || p.rlimit_pids || !in_cgroup) ? "partial" : "full";
  j["uid"] = spec.uid;
  j["gid"] = spec.gid;
  j["namespaces"] = p.namespaces ? "pid mount net ipc uts" : "none";
  j["filesystem"] = !p.namespaces ? "host"
                    : p.in_chroot ? "private root (chroot on " + p.root_base + ")"
                                  : "private root";
  if (!p.degraded_because.empty()) j["degraded_because"] = p.degraded_because;
  for (const auto& [part, how] : cgroup.what()) j[part] = how;
  j["memory_fallback"] = p.rlimit_memory ? "RLIMIT_DATA per process" : "";
  j["pids_fallback"] = p.rlimit_pids ? "RLIMIT_NPROC per uid" : "";
  return j;
}

// How the command ended, as fields (the grader's) and a line (people's).
struct JailOutcome {
  std::string words;  // "exited 0", "timed out", "killed by signal 9", "setup failed: ..."
  int exit_status = 0;
  bool timed_out = false, setup_failed = false;
  int signal_to_raise = 0;  // the command's own death, passed on
};

// Waits for init, the wall clock, or a signal to the jail; an outcome only when it was not init
// that ended (the clock: timed out; a signal: stopped).
JailOutcome wait_for_init(const JailSpec& spec, pid_t init, const sigset_t& watched, double start, int& init_status) {
  JailOutcome o;
  for (;;) {
    double left = spec.wall_seconds > 0 ? spec.wall_seconds - (now_seconds() - start) : 3600;
    if (left <= 0) {
      o.words = "timed out";
      o.timed_out = true;
      o.exit_status = kJailTimedOut;
      return o;
    }
    timespec ts{time_t(left), long((left - double(time_t(left))) * 1e9)};
    int sig = ::sigtimedwait(&watched, nullptr, &ts);
    if (sig == SIGCHLD || sig < 0) {
      if (::waitpid(init, &init_status, WNOHANG) == init) return o;
      continue;
    }
    o.words = std::string("stopped by signal ") + std::to_string(sig);
    o.exit_status = 128 + sig;
    return o;
  }
}

// Init ended by itself: what the command did, from init's report and the setup's own words.
void read_command_outcome(int status_r, int report_r, JailOutcome& o) {
  std::string setup_error;
  char buf[512];
  ssize_t n;
  ::fcntl(status_r, F_SETFL, O_NONBLOCK);
  while ((n = ::read(status_r, buf, sizeof buf)) > 0) setup_error.append(buf, size_t(n));
  int command_status = 0;
  const bool reported = ::read(report_r, &command_status, sizeof command_status) == ssize_t(sizeof command_status);
  if (!setup_error.empty() || !reported) {
    o.words = setup_error.empty() ? "setup failed" : "setup failed: " + setup_error;
    o.setup_failed = true;
    o.exit_status = kJailSetupFailed;
  } else if (WIFSIGNALED(command_status)) {
    o.signal_to_raise = WTERMSIG(command_status);
    o.words = "killed by signal " + std::to_string(o.signal_to_raise);
    o.exit_status = 128 + o.signal_to_raise;
  } else {
    o.exit_status = WEXITSTATUS(command_status);
    o.words = "exited " + std::to_string(o.exit_status);
  }
}

// The report, to --report-isolation's file, or said when the isolation is less than full.
void write_report(const JailSpec& spec, const nlohmann::json& report) {
  const std::string line = report.dump() + "\n";
  if (!spec.report_isolation.empty()) {
    int fd = ::open(spec.report_isolation.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, line.data(), line.size());
      ::close(fd);
    }
  } else if (report["level"] != "full" && !spec.quiet) {
    say("isolation " + line.substr(0, line.size() - 1));
  }
}

// Signals reach the supervisor only through sigtimedwait (wait_for_init): the set it waits on.
sigset_t watch_signals(const JailSpec& spec, pid_t parent) {
  sigset_t watched;
  sigemptyset(&watched);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&watched, sig);
  ::sigprocmask(SIG_BLOCK, &watched, nullptr);
  if (spec.die_with_parent) {
    // The parent's death arrives as SIGTERM, handled like any SIGTERM. A parent that died
    // before this line is seen through getppid().
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::kill(::getpid(), SIGTERM);
  }
  return watched;
}

// Pass the command's fate on unchanged: die of the same signal.
void raise_command_signal(int sig) {
  ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::kill(::getpid(), sig);
}

// Everything the command started goes, whatever it did with signals, sessions or output; then
// the cgroup is removed. Returns whether it reached the memory limit.
bool end_everything(pid_t init, const Plan& p, std::unique_ptr<JobCgroup>& cgroup, bool reap_init, int& init_status) {
  ::kill(init, SIGKILL);
  if (!p.namespaces) ::kill(-init, SIGKILL);
  cgroup->kill_all();
  if (reap_init) ::waitpid(init, &init_status, 0);
  if (!p.namespaces) end_descendants();
  const bool oom = cgroup->memory_limit_hit();
  cgroup.reset();  // waits for the group to empty, removes it
  return oom;
}

}  // namespace

int run_jail(const JailSpec& spec, const std::vector<std::string>& command) {
  const double start = now_seconds();
  const pid_t parent = ::getppid();
  if (command.empty() || ::geteuid() != 0) {
    say(command.empty() ? "no command to run"
                        : "needs root (to give the command its own identity, namespaces and cgroup)");
    return kJailSetupFailed;
  }
  set_limit(RLIMIT_CORE, 0);  // the supervisor may re-raise the command's signal on itself
  std::vector<std::string> env = jail_environment(spec);
  Plan p;
  p.spec = &spec;
  std::vector<std::string> argv_store = command;
  for (auto& a : argv_store) p.argv.push_back(a.data());
  p.argv.push_back(nullptr);
  for (auto& e : env) p.envp.push_back(e.data());
  p.envp.push_back(nullptr);

  auto cgroup = std::make_unique<JobCgroup>(
      "j" + std::to_string(::getpid()),
      CgroupLimits{spec.memory_mb << 20, spec.pids, spec.cpu_weight, spec.cpus, spec.cpu_list});
  for (const auto& [part, how] : cgroup->what()) {
    if (part == "memory") p.rlimit_memory = how == "none";
    if (part == "pids") p.rlimit_pids = how == "none";
    if (part == "cores") p.pin_affinity = how == "none" && !spec.cpu_list.empty();
  }
  const sigset_t watched = watch_signals(spec, parent);
  int status[2], go[2], report[2];
  if (::pipe2(status, O_CLOEXEC) != 0 || ::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    say("cannot create pipes");
    return kJailSetupFailed;
  }
  p.status_w = status[1];
  p.go_r = go[0];
  p.report_w = report[1];
  if (!choose_isolation(spec, p)) return kJailSetupFailed;
  // Without a PID namespace nothing ends with init: what the command detaches comes back to
  // the jail instead of the host's init, and is ended below.
  if (!p.namespaces) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t init = ::fork();
  if (init < 0) {
    say("cannot fork");
    return kJailSetupFailed;
  }
  if (init == 0) {
    ::close(go[1]);  // else a dead supervisor would leave init waiting on its own pipe
    if (!p.namespaces) ::setsid();  // without a PID namespace, a process group is what can be killed
    init_main(p);
  }
  ::close(status[1]);
  ::close(go[0]);
  ::close(report[1]);
  const bool in_cgroup = cgroup->add(init);
  (void)!::write(go[1], "g", 1);  // init may proceed: it and all it starts are in the cgroup
  ::close(go[1]);
  nlohmann::json isolation = isolation_report(spec, p, *cgroup, in_cgroup);

  int init_status = 0;
  JailOutcome o = wait_for_init(spec, init, watched, start, init_status);
  const bool oom = end_everything(init, p, cgroup, !o.words.empty(), init_status);
  if (o.words.empty()) read_command_outcome(status[0], report[0], o);
  if (oom) o.words += "; memory limit reached";
  if (o.setup_failed) say(o.words);
  if (o.timed_out)
    say("stopped at the " + std::to_string(int(spec.wall_seconds + 0.5)) +
        " s time limit; everything it started was killed");
  if (oom)
    say("the memory limit (" + std::to_string(spec.memory_mb) + " MiB for all its processes together) was reached");
  isolation["outcome"] = o.words;  // for people; the fields below are what programs read
  isolation["timed_out"] = o.timed_out;
  isolation["setup_failed"] = o.setup_failed;
  isolation["memory_limit_reached"] = oom;
  isolation["exit_status"] = o.exit_status;
  isolation["seconds"] = now_seconds() - start;
  write_report(spec, isolation);
  if (o.signal_to_raise) raise_command_signal(o.signal_to_raise);
  return o.exit_status;
}

std::optional<std::vector<int>> parse_cpu_list(const std::string& list) {
  std::set<int> cores;
  size_t i = 0;
  auto number = [&](int& out) {
    const size_t start = i;
    out = 0;
    while (i < list.size() && std::isdigit(static_cast<unsigned char>(list[i])) && i - start < 5)
      out = out * 10 + (list[i++] - '0');
    return i > start && out < CPU_SETSIZE;
  };
  while (i < list.size()) {
    int first = 0, last = 0;
    if (!number(first)) return std::nullopt;
    last = first;
    if (i < list.size() && list[i] == '-' && (++i, !number(last))) return std::nullopt;
    if (last < first) return std::nullopt;
    for (int c = first; c <= last; ++c) cores.insert(c);
    if (i < list.size() && (list[i] != ',' || ++i == list.size())) return std::nullopt;
  }
  if (cores.empty()) return std::nullopt;
  return std::vector<int>(cores.begin(), cores.end());
}

}  // namespace grading
