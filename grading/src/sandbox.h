// Runs one untrusted program (a student's build or lab binary) in its own processes, with
// a wall-clock timeout that kills everything it started, resource limits, captured output
// (kept up to a limit, the rest counted and dropped) and, on request, the verdict channel.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grading {

struct Limits {
  double wall_seconds = 60;
  uint64_t address_space_bytes = 0;  // RLIMIT_AS (0: none). Not for CUDA programs: they map huge ranges.
  uint64_t data_bytes = 0;           // RLIMIT_DATA (0: none)
  uint64_t file_bytes = 64ull << 20; // RLIMIT_FSIZE: largest file it may write
  uint64_t processes = 0;            // RLIMIT_NPROC, only when running as another user (0: none)
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU, a backstop should the grader itself die (0: none)
  size_t output_keep_bytes = 64 << 10;  // stdout+stderr kept; the rest is counted, not stored
};

struct Identity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;
};

struct RunSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in the PATH of env
  std::vector<std::string> env;   // the whole environment: nothing of the grader's leaks in
  std::filesystem::path cwd;
  Limits limits;
  std::optional<Identity> run_as;  // drop to this user (needs root)
  bool new_namespaces = false;     // private network (none) and PID namespace (needs root)
  bool verdict_channel = false;    // hand the program a pipe and a fresh secret (report_channel.h)
  // With namespaces: folders covered by an empty read-only tmpfs for this run only (the
  // reference solutions, the grades). Best effort: a folder that cannot be covered stays.
  std::vector<std::filesystem::path> hidden;
};

struct RunResult {
  bool started = false;
  std::string start_error;  // why it could not start
  int exit_code = -1;       // when it exited
  int term_signal = 0;      // when a signal ended it
  bool timed_out = false;
  double seconds = 0;
  std::string output;       // the first output_keep_bytes of stdout and stderr, interleaved
  uint64_t output_bytes = 0;  // everything it printed
  bool output_truncated() const { return output_bytes > output.size(); }
  std::string channel;      // the raw bytes that came through the verdict channel
  std::string secret;       // the secret this run's channel was keyed with

  // "exited with status 1", "was killed by signal 11 (Segmentation fault)", "timed out after 30 s"
  std::string describe() const;
  // output plus a line saying how much more was printed and dropped.
  std::string output_with_note() const;
};

RunResult run_sandboxed(const RunSpec& spec);

// Whether this process can give children their own network and PID namespaces.
bool namespaces_available();
// The unprivileged user to run submissions as when the grader runs as root ("nobody").
std::optional<Identity> lookup_user(const std::string& name);

// Kills every process group the sandbox has running (the grader's SIGINT/SIGTERM handler).
void kill_all_running();

}  // namespace grading
