// cudalab-jail against the attack classes of issue 9, as root: each attack runs in a jail
// exactly as a student's build or run would, and the test checks the verdict, that nothing
// leaked out, and that nothing was left behind. Skipped (with a message) when not root.
#include <doctest/doctest.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include "leftovers.h"
#include "grader/process.h"
#include "safe_io/files.h"
#include "safe_io/secrets.h"

using namespace grading;
using namespace grading_test;

namespace {

const fs::path kRepo = CUDALAB_REPO;
const unsigned kUidBase = 390000;

bool can_jail() {
  if (geteuid() == 0) return true;
  MESSAGE("skipped: cudalab-jail needs root (this test runs as uid " << geteuid() << ")");
  return false;
}

// A student's folder, owned by their uid, as the grader makes it.
fs::path student_folder(unsigned index) {
  const fs::path dir = "/tmp/cudalab-jail-test/s" + std::to_string(index);
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  ::chmod("/tmp/cudalab-jail-test", 0711);
  if (::chown(dir.c_str(), kUidBase + index, kUidBase + index) != 0) FAIL("chown");
  return dir;
}

RunResult jailed(const std::string& script, unsigned index, double wall, uint64_t memory_mb = 512, uint64_t pids = 64,
                 const std::function<void(RunSpec&)>& adjust = {}) {
  RunSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.env = {"PATH=/usr/bin:/bin"};
  s.cwd = student_folder(index);
  s.limits.wall_seconds = wall;
  s.limits.processes = pids;
  s.limits.data_bytes = memory_mb << 20;
  s.limits.output_keep_bytes = 4096;
  JailSpec j;
  j.uid = j.gid = kUidBase + index;
  j.bind = {s.cwd.string()};
  j.tmp_mb = 64;
  s.jail = j;
  s.jail_program = (kRepo / "build/grading/cudalab-jail").string();
  if (adjust) adjust(s);
  return run_sandboxed(s);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("jail: identity, namespaces, a private root with only its own folder, isolation report") {
  if (!can_jail()) return;
  RunResult r = jailed("id -u; echo $$; ls /; ls /work 2>&1 | head -1; ls " + kRepo.string() +
                           "/solutions 2>&1 | head -1;"
                           " grep -c : /proc/net/dev; touch /etc/x 2>&1 | head -1; echo ok > $PWD/mine; cat $PWD/mine",
                       1, 20);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.rfind(std::to_string(kUidBase + 1) + "\n2\n", 0) == 0);  // its uid; PID 2 (init is 1)
  CHECK(r.output.find("No such file") != std::string::npos);  // the repository is not there
  CHECK(r.output.find("Read-only file system") != std::string::npos);
  CHECK(r.output.find("\n1\n") != std::string::npos);  // loopback only: no network
  CHECK(r.output.find("ok\n") != std::string::npos);
  CHECK(r.isolation.find("\"namespaces\":\"pid mount net ipc uts\"") != std::string::npos);
  MESSAGE("isolation obtained here: " << r.isolation);
}

TEST_CASE("jail: --cpu-list keeps the command and its children to those cores (the grader's emulator runs)") {
  if (!can_jail()) return;
  cpu_set_t mine;
  REQUIRE(::sched_getaffinity(0, sizeof mine, &mine) == 0);
  int last = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mine)) last = c;
  REQUIRE(last >= 0);
  const std::string core = std::to_string(last);
  // The command tries to leave its core (a hostile emulator run would, to slow the timing
  // beside it): every core the grader has, by taskset, which calls sched_setaffinity.
  RunResult r = jailed("grep Cpus_allowed_list /proc/self/status; taskset -acp 0-" + core +
                           " $$ >/dev/null 2>&1;"
                           " sh -c 'grep Cpus_allowed_list /proc/self/status'",
                       2, 20, 512, 64, [&](RunSpec& s) { s.jail->cpu_list = core; });
  INFO(r.output);
  INFO(r.isolation);
  CHECK(r.exit_code == 0);
  const std::string line = "Cpus_allowed_list:\t" + core + "\n";
  CHECK(r.output == line + line);  // the command, and a child of it after the attempt to leave
  CHECK(r.isolation.find("\"cores\":") != std::string::npos);
  CHECK(parse_cpu_list("0-3,8") == std::vector<int>{0, 1, 2, 3, 8});
  CHECK_FALSE(parse_cpu_list("3-1"));
  CHECK_FALSE(parse_cpu_list("1,"));
  CHECK_FALSE(parse_cpu_list(""));
}

TEST_CASE("jail: a fork bomb meets the task limit, and nothing of it survives") {
  if (!can_jail()) return;
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = jailed("b() { b & b & }; b; sleep 3", 2, 8, 512, 64);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("fork bomb: " << r.describe() << " after " << s << " s");
  CHECK(s < 12);
  CHECK(processes_of(kUidBase + 2) == 0);
}

TEST_CASE("jail: children each under the limit are held together by one memory limit") {
  if (!can_jail()) return;
  // Four children of 100 MiB each against a 256 MiB limit for all of them.
  RunResult r = jailed(
      "for i in 1 2 3 4; do (head -c 100000000 /dev/zero | tail -c 1 >/dev/null; x=$(head -c 100000000 /dev/zero | tr "
      "'\\0' a); sleep 5) & done; wait; echo survived",
      3, 20, 256);
  MESSAGE("memory hog: " << r.describe() << ", memory limit hit: " << r.memory_limit_hit << ", " << r.isolation);
  CHECK(r.isolation.find("\"memory\":\"cgroup") != std::string::npos);
  CHECK(r.memory_limit_hit);
  CHECK(processes_of(kUidBase + 3) == 0);
}

TEST_CASE("jail: a sleeper that ignores SIGTERM, with detached children, costs one time limit") {
  if (!can_jail()) return;
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = jailed(
      "trap '' TERM HUP INT; setsid sh -c 'trap \"\" TERM; while :; do sleep 1; done' & "
      "(setsid sleep 1000 &) ; nohup sleep 1000 >/dev/null 2>&1 & sleep 1000",
      4, 3);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("hanging student: stopped after " << s << " s against a 3 s limit (" << r.describe() << ")");
  CHECK(r.timed_out);
  CHECK(s < 6);
  CHECK(processes_of(kUidBase + 4) == 0);
}

TEST_CASE("jail: an output flood from detached writers ends with the time limit") {
  if (!can_jail()) return;
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = jailed("for i in 1 2 3; do setsid sh -c 'yes flood' & done; sleep 1000", 5, 3);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("output flood: " << r.output_bytes << " bytes printed, " << r.output.size() << " kept, " << s << " s");
  CHECK(r.timed_out);
  CHECK(r.output.size() <= 4096);
  CHECK(s < 6);
  CHECK(processes_of(kUidBase + 5) == 0);
}

TEST_CASE("jail: /tmp, /var/tmp, /dev/shm and System V memory are private and gone afterwards") {
  if (!can_jail()) return;
  const std::string marker = "cudalab-leak-" + random_hex(4);
  // Writes everywhere it may, leaves a SysV segment (perl's shmget), and fills /tmp past its size.
  RunResult w = jailed("echo secret > /tmp/" + marker + "; echo secret > /var/tmp/" + marker +
                           "; echo secret > /dev/shm/" + marker +
                           "; perl -e 'use IPC::SysV qw(IPC_PRIVATE IPC_CREAT); defined(shmget(IPC_PRIVATE, 1<<20, "
                           "IPC_CREAT|0666)) or die; print qq(shm made\\n)'; "
                           "head -c 200000000 /dev/zero > /tmp/fill; echo size $(stat -c %s /tmp/fill)",
                       6, 20);
  INFO(w.output);
  CHECK(w.output.find("shm made") != std::string::npos);
  CHECK(w.output.find("No space left") != std::string::npos);  // the tmpfs (64 MiB here) stopped the writer
  for (const char* dir : {"/tmp/", "/var/tmp/", "/dev/shm/"}) CHECK_FALSE(fs::exists(dir + marker));
  CHECK(sysv_objects_of(kUidBase + 6) == 0);  // the segment went with the IPC namespace
  // A later student sees nothing of it.
  RunResult r = jailed("ls /tmp /var/tmp /dev/shm; ipcs -m | grep -c " + std::to_string(kUidBase + 6), 7, 20);
  CHECK(r.output.find(marker) == std::string::npos);
}

TEST_CASE("jail: a job's cgroup is removed when it ends") {
  if (!can_jail()) return;
  RunResult r = jailed("cat /proc/self/cgroup", 8, 20);
  INFO(r.output);
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("/cudalab/j");
    if (at == std::string::npos) continue;
    const std::string job = line.substr(at);
    bool left = false;
    for (const char* h : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids"})
      left |= fs::exists(std::string(h) + job);
    CHECK_FALSE(left);
  }
}

TEST_CASE("jail: two students at once share no channel: files, SysV and POSIX IPC, sockets, processes") {
  if (!can_jail()) return;
  // The first opens every channel it can think of, leaves a detached holder, and waits; the
  // second, jailed at the same time as another student, looks for each. Both get the tag
  // reversed on their command lines, so that neither finds it there.
  const std::string tag = "cudalab-x-" + random_hex(3);
  const std::string common = R"(
import ctypes, glob, os, socket, sys, time
tag = sys.argv[1][::-1]
key = int(tag[-6:], 16)
port = 20000 + key % 20000
libc = ctypes.CDLL(None, use_errno=True)
libc.mq_open.restype = ctypes.c_int
)";
  const std::string opener = common + R"(
made = []
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); a.bind("\0" + tag); a.listen(8); made.append("abstract")
f = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); f.bind("/tmp/" + tag + ".sock"); f.listen(8); made.append("unix")
t = socket.socket(); t.bind(("127.0.0.1", port)); t.listen(8); made.append("tcp")
if libc.mq_open(("/" + tag).encode(), os.O_CREAT | os.O_RDWR, 0o666, None) >= 0: made.append("mq")
if libc.shmget(key, 1 << 20, 0o1666) >= 0: made.append("shm")
if libc.semget(key, 1, 0o1666) >= 0: made.append("sem")
if libc.msgget(key, 0o1666) >= 0: made.append("msg")
for d in ("/tmp", "/var/tmp", "/dev/shm"):
    open(d + "/" + tag, "w").write("secret")
if os.fork() == 0:  # a detached holder: its own session, its parent gone
    os.setsid()
    if os.fork() == 0:
        sys.argv[0] = "OPENER" + "-HOLDER"
        time.sleep(1000)
    os._exit(0)
open("ready", "w").write(" ".join(made))
while not os.path.exists("stop"):
    time.sleep(0.05)
)";
  const std::string seeker = common + R"(
found = []
def look(name, f):
    try:
        if f(): found.append(name)
    except OSError:
        pass
def connect(family, address):
    s = socket.socket(family, socket.SOCK_STREAM); s.settimeout(1); s.connect(address); return True
look("abstract socket", lambda: connect(socket.AF_UNIX, "\0" + tag))
look("socket file", lambda: connect(socket.AF_UNIX, "/tmp/" + tag + ".sock"))
look("tcp port", lambda: connect(socket.AF_INET, ("127.0.0.1", port)))
look("posix mq", lambda: libc.mq_open(("/" + tag).encode(), os.O_RDONLY, 0, None) >= 0)
look("sysv shm", lambda: libc.shmget(key, 0, 0) >= 0)
look("sysv sem", lambda: libc.semget(key, 0, 0) >= 0)
look("sysv msg", lambda: libc.msgget(key, 0) >= 0)
for d in ("/tmp", "/var/tmp", "/dev/shm"):
    look(d, lambda d=d: os.path.exists(d + "/" + tag))
for p in glob.glob("/proc/[0-9]*/cmdline"):
    look("process " + p, lambda p=p: b"OPENER" + b"-HOLDER" in open(p, "rb").read() or tag.encode() in open(p, "rb").read())
print("found:", found)
)";
  const std::string reversed(tag.rbegin(), tag.rend());
  auto python = [&](const std::string& code) {
    return [&, code](RunSpec& s) { s.argv = {"python3", "-c", code, reversed}; };
  };
  const unsigned opener_index = 13, seeker_index = 14;
  const fs::path opener_dir = "/tmp/cudalab-jail-test/s" + std::to_string(opener_index);
  RunResult opened;
  std::thread first([&] { opened = jailed("", opener_index, 60, 512, 64, python(opener)); });
  for (int i = 0; i < 400 && !fs::exists(opener_dir / "ready"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::string made = read_file(opener_dir / "ready").value_or("(not ready)");
  RunResult seen = jailed("", seeker_index, 30, 512, 64, python(seeker));
  std::ofstream(opener_dir / "stop").put('\n');
  first.join();
  INFO("opener: " << opened.output << "\nseeker: " << seen.output);
  CHECK(made == "abstract unix tcp mq shm sem msg");  // every channel was there to be found
  CHECK(seen.output == "found: []\n");
  CHECK(opened.exit_code == 0);
  // And nothing of the opener outlives it: its detached holder, its IPC objects, its files.
  CHECK(processes_of(kUidBase + opener_index) == 0);
  CHECK(sysv_objects_of(kUidBase + opener_index) == 0);
  CHECK(posix_queues_of(kUidBase + opener_index) == 0);
  CHECK(scratch_files_of(kUidBase + opener_index) == 0);
  for (const char* dir : {"/tmp/", "/var/tmp/", "/dev/shm/"}) CHECK_FALSE(fs::exists(dir + tag));
}

TEST_CASE("jail: a classmate's spinning children do not slow another student's work") {
  if (!can_jail()) return;
  // The same shell loop, alone and then beside a jail spinning 16 children on this machine's
  // few cores: each jail has one equal CPU share, however many processes it runs.
  const std::string work = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done";
  auto t0 = std::chrono::steady_clock::now();
  jailed(work, 16, 60);
  const double alone = seconds_since(t0);
  std::thread spinner(
      [&] { jailed("for i in $(seq 16); do (while :; do :; done) & done; sleep 1000", 15, 8, 512, 64); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  t0 = std::chrono::steady_clock::now();
  RunResult beside = jailed(work, 16, 60);
  const double next_to_spinners = seconds_since(t0);
  spinner.join();
  MESSAGE("a student's work took " << alone << " s alone and " << next_to_spinners
                                   << " s beside 16 spinning children of a "
                                   << "classmate (" << std::thread::hardware_concurrency() << " cores)");
  CHECK(beside.exit_code == 0);
  CHECK(next_to_spinners < 2.5 * alone + 0.3);  // without a share per jail: about 8 times as long on 2 cores
  CHECK(processes_of(kUidBase + 15) == 0);
}

TEST_CASE("jail: a working folder of its own (--scratch) holds what many pieces write; the disk gets none of it") {
  if (!can_jail()) return;
  // Pieces of 15 MB, each under the 16 MB file limit, written into the working folder (a
  // kernel runner's run/): its private tmpfs (64 MiB here) stops them, not the host's disk.
  RunResult r = jailed(
      "for i in $(seq 1 40); do head -c 15000000 /dev/zero > part$i || break; done; "
      "echo used $(du -sm . | cut -f1); touch $PWD/../escape 2>&1 | head -1",
      17, 30, 512, 64, [](RunSpec& s) {
        s.jail->bind.clear();
        s.jail->scratch = {s.cwd.string()};
        s.limits.file_bytes = 16u << 20;
      });
  INFO(r.output);
  const fs::path dir = "/tmp/cudalab-jail-test/s17";
  CHECK(r.output.find("No space left") != std::string::npos);
  CHECK(r.output.find("used 6") != std::string::npos);  // 60-some MB of 40 x 15 MB
  CHECK(r.output.find("cannot touch") != std::string::npos);
  CHECK(fs::is_empty(dir));  // nothing reached the host's folder
  CHECK_FALSE(fs::exists(dir.parent_path() / "escape"));
}

namespace {

// Runs the jail as in a container that refuses namespaces (unshare fails, as under Docker's
// default seccomp profile) and offers no cgroups (an empty /sys/fs/cgroup), as on Gradescope:
// a child of the test sets that up in a mount namespace of its own and execs the jail.
std::string in_plain_container(const std::vector<std::string>& jail_args, int* status) {
  const fs::path out = "/tmp/cudalab-jail-test/container.out";
  fs::create_directories(out.parent_path());
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::freopen(out.c_str(), "w", stdout);
    (void)f;
    ::dup2(1, 2);
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", "/sys/fs/cgroup", "tmpfs", 0, "size=4k,mode=0555") != 0)
      _exit(120);
    sock_filter filter[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
                            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
                            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog prog{sizeof filter / sizeof filter[0], filter};
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) _exit(121);
    std::vector<char*> argv;
    const std::string jail = (kRepo / "build/grading/cudalab-jail").string();
    argv.push_back(const_cast<char*>(jail.c_str()));
    for (const auto& a : jail_args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  ::waitpid(pid, status, 0);
  return read_file(out).value_or("");
}

}  // namespace

TEST_CASE(
    "jail: in a container without namespaces or cgroups (Gradescope), still the student's uid, and nothing outlives "
    "it") {
  if (!can_jail()) return;
  const uid_t uid = kUidBase + 18;
  const fs::path source = "/tmp/cudalab-jail-test/autograder-source";  // root's, as /autograder/source
  fs::create_directories(source);
  ::chmod(source.c_str(), 0755);
  write_file_atomic(source / "secret", "root only\n");  // 0600
  const fs::path report = "/tmp/cudalab-jail-test/container.json";
  int status = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string out = in_plain_container(
      {"--uid", std::to_string(uid), "--gid", std::to_string(uid), "--allow-degraded", "--memory-mb", "256", "--pids",
       "64", "--wall", "3", "--report-isolation", report.string(), "--", "/bin/sh", "-c",
       "id -u; cat " + (source / "secret").string() + " 2>&1; touch " + (source / "mine").string() +
           " 2>&1; trap '' TERM; setsid sh -c 'trap \"\" TERM; while :; do sleep 1; done' & (setsid sleep 1000 &); "
           "sleep 1000"},
      &status);
  const double s = seconds_since(t0);
  const std::string isolation = read_file(report).value_or("");
  INFO(out << "\n" << isolation);
  MESSAGE("without namespaces or cgroups: stopped after " << s << " s against a 3 s limit; " << isolation);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 124);
  CHECK(out.rfind(std::to_string(uid) + "\n", 0) == 0);  // never root
  CHECK(out.find("Permission denied") != std::string::npos);
  CHECK(out.find("root only") == std::string::npos);
  CHECK_FALSE(fs::exists(source / "mine"));
  CHECK(isolation.find("\"level\":\"degraded\"") != std::string::npos);
  CHECK(isolation.find("RLIMIT_DATA per process") != std::string::npos);
  CHECK(isolation.find("RLIMIT_NPROC per uid") != std::string::npos);
  // Its detached children (their own sessions, ignoring SIGTERM) end with it, not after.
  CHECK(processes_of(uid) == 0);
  CHECK(s < 6);
  fs::remove_all(source);
}

namespace {

int mount_count() {
  int n = 0;
  std::string text = read_file("/proc/self/mountinfo").value_or("");
  for (char c : text) n += c == '\n';
  return n;
}

// Runs the jail in a chroot whose root is a plain folder, not a mount point (as a build chroot
// or some autograder images are): a child of the test makes a mount namespace of its own, cut
// from the host, whose mounts it then makes shared (as systemd does), builds the chroot from
// the host's system folders by bind mounts (and, `with_mounts`, a /proc, /dev, /sys and a /tmp
// of its own), and starts the jail in a further namespace, a peer of its own, chrooted there.
// The jail's output goes to `out`; the child then exits 0 only if its own mount table is as it
// was (nothing the jail mounted showed outside its namespace): else 90.
int in_plain_chroot(bool with_mounts, const std::vector<std::string>& jail_args, const fs::path& out) {
  fs::create_directories(out.parent_path());
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::freopen(out.c_str(), "w", stdout);
    (void)f;
    ::dup2(1, 2);
    const std::string ch = "/tmp/cudalab-jail-test/chroot-" + std::to_string(::getpid());
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_SHARED, nullptr) != 0)
      _exit(120);
    auto bind = [&](const std::string& from, const std::string& to) {
      fs::create_directories(ch + to);
      if (::mount(from.c_str(), (ch + to).c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) _exit(121);
    };
    for (const char* d : {"/usr", "/etc"}) bind(d, d);
    for (const char* l : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
      std::error_code ec;
      if (fs::is_symlink(l, ec))
        fs::create_symlink(fs::read_symlink(l), ch + l, ec);
      else if (fs::is_directory(l, ec))
        bind(l, l);
    }
    // The jail itself, copied (the checkout may lie under /tmp, which the chroot's own covers).
    fs::create_directories(ch + "/jail");
    fs::copy_file(kRepo / "build/grading/cudalab-jail", ch + "/jail/cudalab-jail");
    fs::create_directories(ch + "/tmp");
    ::chmod((ch + "/tmp").c_str(), 01777);
    if (with_mounts) {
      bind("/dev", "/dev");
      bind("/sys", "/sys");
      fs::create_directories(ch + "/proc");
      if (::mount("proc", (ch + "/proc").c_str(), "proc", 0, nullptr) != 0 ||
          ::mount("tmpfs", (ch + "/tmp").c_str(), "tmpfs", 0, "size=64m,mode=1777") != 0)
        _exit(122);
    }
    fs::create_directories(ch + "/tmp/s");
    if (::chown((ch + "/tmp/s").c_str(), kUidBase + 19, kUidBase + 19) != 0) _exit(123);
    const int before = mount_count();
    pid_t jail = ::fork();
    if (jail == 0) {
      if (::unshare(CLONE_NEWNS) != 0 || ::chroot(ch.c_str()) != 0 || ::chdir("/") != 0) _exit(124);
      std::vector<char*> argv;
      const std::string program = "/jail/cudalab-jail";
      argv.push_back(const_cast<char*>(program.c_str()));
      for (const auto& a : jail_args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      _exit(127);
    }
    int st = 0;
    ::waitpid(jail, &st, 0);
    std::printf("\njail status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    const bool written = fs::exists(ch + "/tmp/s/mine");
    std::printf("written %d, mounts before %d after %d\n%s\n", int(written), before, mount_count(),
                read_file(ch + "/tmp/report.json").value_or("").c_str());
    std::fflush(stdout);
    _exit(mount_count() == before ? 0 : 90);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::error_code ec;  // its mounts went with its namespace: only folders are left
  fs::remove_all("/tmp/cudalab-jail-test/chroot-" + std::to_string(pid), ec);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("jail: in a chroot whose root is no mount point, a private root all the same, and nothing shows outside") {
  if (!can_jail()) return;
  const uid_t uid = kUidBase + 19;
  const fs::path out = "/tmp/cudalab-jail-test/chroot.out";
  const std::vector<std::string> args = {"--uid",
                                         std::to_string(uid),
                                         "--gid",
                                         std::to_string(uid),
                                         "--bind",
                                         "/tmp/s",
                                         "--hide",
                                         "/etc/ssh",
                                         "--wall",
                                         "10",
                                         "--report-isolation",
                                         "/tmp/report.json",
                                         "--",
                                         "/bin/sh",
                                         "-c",
                                         "id -u; ls " + kRepo.string() +
                                             " 2>&1 | head -1; touch /usr/x 2>&1 | head -1; "
                                             "echo ok > /tmp/s/mine; (setsid sleep 1000 &)"};
  const int status = in_plain_chroot(true, args, out);
  const std::string text = read_file(out).value_or("");
  INFO(text);
  CHECK(status == 0);  // its mount table as it was: nothing of the jail showed outside
  CHECK(text.rfind(std::to_string(uid) + "\n", 0) == 0);
  CHECK(text.find("Read-only file system") != std::string::npos);
  CHECK(text.find("jail status 0") != std::string::npos);
  CHECK(text.find("written 1") != std::string::npos);
  CHECK(text.find("No such file") != std::string::npos);  // the repository is not there
  CHECK(text.find("\"namespaces\":\"pid mount net ipc uts\"") != std::string::npos);
  CHECK(text.find("private root (chroot on /tmp)") != std::string::npos);
  CHECK(processes_of(uid) == 0);
}

TEST_CASE("jail: in a bare chroot (no /proc, no mount inside), refused with the reason, or degraded when allowed") {
  if (!can_jail()) return;
  const uid_t uid = kUidBase + 20;
  const fs::path out = "/tmp/cudalab-jail-test/bare-chroot.out";
  std::vector<std::string> args = {
      "--uid", std::to_string(uid), "--gid", std::to_string(uid), "--wall", "10", "--", "/bin/sh", "-c", "id -u"};
  CHECK(in_plain_chroot(false, args, out) == 0);
  std::string text = read_file(out).value_or("");
  CHECK_MESSAGE(text.find("jail status 125") != std::string::npos, text);
  CHECK_MESSAGE(text.find("/ is not a mount point") != std::string::npos, text);
  CHECK_MESSAGE(text.find("--allow-degraded") != std::string::npos, text);
  args.insert(args.begin(), "--allow-degraded");
  CHECK(in_plain_chroot(false, args, out) == 0);
  text = read_file(out).value_or("");
  CHECK_MESSAGE(text.rfind(std::to_string(uid) + "\n", 0) == 0, text);  // never root
  CHECK_MESSAGE(text.find("\"level\":\"degraded\"") != std::string::npos, text);
  CHECK_MESSAGE(text.find("not a mount point") != std::string::npos, text);
  CHECK(processes_of(uid) == 0);
}
