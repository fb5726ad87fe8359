// The isolation one untrusted command runs in (a student's build, or a kernel runner): the
// setup behind cudalab-jail (jail_main.cpp), and the command line that asks for it, so that
// the grader and the jail agree on one description. See jail_main.cpp for the CLI.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace grading {

struct JailSpec {
  uid_t uid = 65534;  // the student's own identity (65534: nobody)
  gid_t gid = 65534;
  std::vector<std::string> bind;  // visible read-write, at the same path
  std::vector<std::string> ro_bind;  // visible read-only, at the same path
  std::vector<std::string> hide;  // covered by an empty read-only folder (inside a visible tree)
  std::vector<std::string> scratch;  // a private tmpfs of tmp_mb at each path, the command's own, gone with it
  std::vector<std::string> devices;  // device nodes made visible (/dev/null, zero, full, random, urandom always)
  bool gpu = false;  // every /dev/nvidia* and a read-only /sys
  std::string chdir = "/tmp";
  uint64_t tmp_mb = 256;  // each of /tmp, /var/tmp, /dev/shm: a private tmpfs this big
  uint64_t memory_mb = 0;  // the whole tree, tmpfs included (cgroup; else RLIMIT_DATA per process)
  uint64_t pids = 0;  // tasks in the whole tree (cgroup; else RLIMIT_NPROC for the uid)
  unsigned cpu_weight = 0;  // share of the CPU against other jails (1..10000)
  double cpus = 0;  // at most this many CPUs' time
  // The cores it may run on ("4-15", "0-3,8"; "": any): its cgroup's cpuset where the host has
  // one, else the command's CPU affinity with sched_setaffinity refused to it (seccomp): either way
  // the command cannot leave them.
  std::string cpu_list;
  double wall_seconds = 0;  // then everything in it is killed; 0: no limit
  uint64_t file_mb = 0;  // largest file one process may write (RLIMIT_FSIZE)
  std::vector<int> keep_fds;  // besides 0, 1, 2 and 3
  std::vector<std::string> env;  // NAME=VALUE: the command's whole environment, besides PATH/HOME/TMPDIR defaults
  bool allow_degraded = false;  // run without namespaces where the host refuses them (says so)
  std::string report_isolation;  // file to write the isolation obtained to ("" : stderr, one line)
  bool quiet = false;  // no isolation line on stderr
  // When the process that started the jail dies (the checker, killed at its wall clock), the
  // jail ends too, as if sent SIGTERM: everything in it is killed and its cgroup removed.
  bool die_with_parent = false;
};

// argv for `cudalab-jail <options> --` (the command follows): what --runner-wrap carries.
std::vector<std::string> jail_argv(const std::string& jail_program, const JailSpec& spec);

// Runs `command` (argv[0] is a path inside the jail, or looked up in PATH) under `spec` and
// returns the exit status cudalab-jail itself exits with: the command's status, 128+signal
// when a signal ended it, 124 when the wall-clock limit stopped it, 125 when the jail could
// not be set up (the reason on stderr). Needs root. Call from a single-threaded process.
int run_jail(const JailSpec& spec, const std::vector<std::string>& command);

// Exit statuses of cudalab-jail beyond the command's own.
inline constexpr int kJailTimedOut = 124;
inline constexpr int kJailSetupFailed = 125;

// The cores of a --cpu-list ("4-15", "0-3,8"), ascending; none when it is not such a list.
std::optional<std::vector<int>> parse_cpu_list(const std::string& list);

}  // namespace grading
