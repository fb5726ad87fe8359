// Runs one program for the grader (a student's build or run inside cudalab-jail, or a trusted
// tool as it is) in its own process group, with a wall-clock timeout that kills everything it
// started, resource limits, captured output (kept up to a limit, the rest counted and
// dropped) and, on request, the verdict channel.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "jail/sandbox.h"

namespace grading {

struct Limits {
  double wall_seconds = 60;
  uint64_t address_space_bytes = 0;  // RLIMIT_AS (0: none). Not for CUDA programs: they map huge ranges.
  uint64_t data_bytes = 0;  // RLIMIT_DATA (0: none)
  uint64_t file_bytes = 64ull << 20;  // RLIMIT_FSIZE: largest file it may write
  uint64_t processes = 0;  // tasks (in a jail: the whole tree; else not limited)
  uint64_t cpu_seconds = 0;  // RLIMIT_CPU, a backstop should the grader itself die (0: none)
  size_t output_keep_bytes = 64 << 10;  // stdout+stderr kept; the rest is counted, not stored
};

struct RunSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in the PATH of env
  std::vector<std::string> env;  // the whole environment: nothing of the grader's leaks in
  std::filesystem::path cwd;
  Limits limits;
  bool verdict_channel = false;  // hand the program a pipe and a fresh secret (report_channel.h)
  // Run inside cudalab-jail (the program at jail_program) with this isolation; its limits,
  // environment and wall clock are filled in from the fields above. Needs root.
  std::optional<JailSpec> jail;
  std::string jail_program;
};

struct RunResult {
  bool started = false;
  std::string start_error;  // why it could not start
  int exit_code = -1;  // when it exited
  int term_signal = 0;  // when a signal ended it
  bool timed_out = false;
  bool memory_limit_hit = false;  // in a jail: its cgroup's memory limit was reached
  std::string isolation;  // in a jail: its report (JSON), the isolation obtained
  double seconds = 0;
  std::string output;  // the first output_keep_bytes of stdout and stderr, interleaved
  uint64_t output_bytes = 0;  // everything it printed
  bool output_truncated() const { return output_bytes > output.size(); }
  std::string channel;  // the raw bytes that came through the verdict channel
  std::string secret;  // the secret this run's channel was keyed with

  // "exited with status 1", "was killed by signal 11 (Segmentation fault)", "timed out after 30 s"
  std::string describe() const;
  // output plus a line saying how much more was printed and dropped.
  std::string output_with_note() const;
};

RunResult run_sandboxed(const RunSpec& spec);

// Kills every process group the grader has running (its SIGINT/SIGTERM handler); a jail
// killed so takes its whole namespace with it.
void kill_all_running();

}  // namespace grading
