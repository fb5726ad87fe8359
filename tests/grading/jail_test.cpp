// cudalab-jail against the attack classes of issue 9, as root: each attack runs in a jail
// exactly as a student's build or run would, and the test checks the verdict, that nothing
// leaked out, and that nothing was left behind. Skipped (with a message) when not root.
#include <doctest/doctest.h>

#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "process.h"
#include "util.h"

using namespace grading;

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

RunResult jailed(const std::string& script, unsigned index, double wall, uint64_t memory_mb = 512, uint64_t pids = 64) {
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
  return run_sandboxed(s);
}

// Processes of a uid still alive anywhere on the machine.
int processes_of(uid_t uid) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    struct stat st {};
    if (std::isdigit(static_cast<unsigned char>(e.path().filename().string()[0])) && ::stat(e.path().c_str(), &st) == 0 &&
        st.st_uid == uid)
      ++n;
  }
  return n;
}

int shm_segments_of(uid_t uid) {
  int n = 0;
  std::ifstream in("/proc/sysvipc/shm");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string f[8];
    for (auto& x : f) l >> x;
    if (f[7] == std::to_string(uid)) ++n;  // key shmid perms size cpid lpid nattch uid
  }
  return n;
}

}  // namespace

TEST_CASE("jail: identity, namespaces, a private root with only its own folder, isolation report") {
  if (!can_jail()) return;
  RunResult r = jailed("id -u; echo $$; ls /; ls /work 2>&1 | head -1; ls " + kRepo.string() + "/solutions 2>&1 | head -1;"
                       " grep -c : /proc/net/dev; touch /etc/x 2>&1 | head -1; echo ok > $PWD/mine; cat $PWD/mine", 1, 20);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.rfind(std::to_string(kUidBase + 1) + "\n2\n", 0) == 0);  // its uid; PID 2 (init is 1)
  CHECK(r.output.find("No such file") != std::string::npos);               // the repository is not there
  CHECK(r.output.find("Read-only file system") != std::string::npos);
  CHECK(r.output.find("\n1\n") != std::string::npos);  // loopback only: no network
  CHECK(r.output.find("ok\n") != std::string::npos);
  CHECK(r.isolation.find("\"namespaces\":\"pid mount net ipc uts\"") != std::string::npos);
  MESSAGE("isolation obtained here: " << r.isolation);
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
  RunResult r = jailed("for i in 1 2 3 4; do (head -c 100000000 /dev/zero | tail -c 1 >/dev/null; x=$(head -c 100000000 /dev/zero | tr '\\0' a); sleep 5) & done; wait; echo survived",
                       3, 20, 256);
  MESSAGE("memory hog: " << r.describe() << ", memory limit hit: " << r.memory_limit_hit << ", " << r.isolation);
  CHECK(r.isolation.find("\"memory\":\"cgroup") != std::string::npos);
  CHECK(r.memory_limit_hit);
  CHECK(processes_of(kUidBase + 3) == 0);
}

TEST_CASE("jail: a sleeper that ignores SIGTERM, with detached children, costs one time limit") {
  if (!can_jail()) return;
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = jailed("trap '' TERM HUP INT; setsid sh -c 'trap \"\" TERM; while :; do sleep 1; done' & "
                       "(setsid sleep 1000 &) ; nohup sleep 1000 >/dev/null 2>&1 & sleep 1000", 4, 3);
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
  RunResult w = jailed("echo secret > /tmp/" + marker + "; echo secret > /var/tmp/" + marker + "; echo secret > /dev/shm/" +
                           marker + "; perl -e 'use IPC::SysV qw(IPC_PRIVATE IPC_CREAT); defined(shmget(IPC_PRIVATE, 1<<20, IPC_CREAT|0666)) or die; print qq(shm made\\n)'; "
                           "head -c 200000000 /dev/zero > /tmp/fill; echo size $(stat -c %s /tmp/fill)",
                       6, 20);
  INFO(w.output);
  CHECK(w.output.find("shm made") != std::string::npos);
  CHECK(w.output.find("No space left") != std::string::npos);  // the tmpfs (64 MiB here) stopped the writer
  for (const char* dir : {"/tmp/", "/var/tmp/", "/dev/shm/"}) CHECK_FALSE(fs::exists(dir + marker));
  CHECK(shm_segments_of(kUidBase + 6) == 0);
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
