// The lab binary's command line.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudalab {

struct Options {
  std::optional<uint64_t> seed;  // --seed N
  std::optional<std::vector<size_t>> size;  // --size N | RxC | MxNxK
  std::string only;  // --only ID
  bool timing = true;  // --no-timing
  bool timing_only = false;  // --timing-only: no checks (the grader ran them already)
  bool no_baselines = false;  // --no-baselines: the student's row alone (the grader times the
      // reference and the naive kernel in runs of their own)
  // --all: run the expensive checks even when smaller ones already fail. Without it, and only
  // when stdout is a terminal (a student at `make labN`), they are left out with a note; the
  // grader, the tests and anything else reading a pipe or a file always get every check.
  bool all = false;
  std::string json_path;  // --json PATH
  bool list = false;  // --list
  bool help = false;  // --help
  std::string schedule;  // --schedule in-order|reverse|random:SEED (CPU backend)
  // The kernel runner (issue 8): which program, under which command, with what time limit.
  std::string runner;  // --runner PATH (default: beside the lab, see run_checks.cpp)
  std::vector<std::string> runner_wrap;  // --runner-wrap WORD, repeated: the runner's command prefix
  double check_timeout = 0;  // --check-timeout SECONDS per check (0: none)
  std::string sanitizer_log;  // --sanitizer-log DIR: CHECK=race/asan reports, digested per check
  // --hidden-checks ID[,ID...] (repeatable): the grader's hidden checks. They run after every
  // other check (in a runner that has seen no hidden input, nothing the visible checks say can
  // depend on one), and no text of the runner's reaches the report (runner_words.h).
  std::vector<std::string> hidden_checks;
  // --source PATH: the lab file the runner was built from, as the checker's caller knows it (the
  // grader). Without it the runner's own word (its Hello) names the file, except with hidden checks.
  std::string source;
  // --gpu-gate FILE: timing runs that share a GPU take turns on FILE's lock (gpu_gate.h).
  std::string gpu_gate;
  bool timing_trace = false;  // --timing-trace: where the timing's time goes, on stderr (timing_trace.h)
  // --largest N: only the checks of at most N elements (a shape's product; 0: every check).
  // The grader's emulator run asks for the small ones: they show barrier divergence and races
  // as well as the large ones do, at a fraction of the emulator's time.
  uint64_t largest = 0;
  // PROFILE=1 on the CPU backend (issue 31): after the checks, the lab's function is called once
  // more in each of two profile runners (yours, the reference solution's) at --profile-size (or the
  // lab's profile size), and their counts are digested into "why it is slow". Advice, no verdict.
  std::string profile_runner, profile_reference;
  // --profile-reference-unwrapped: the reference's profile runner runs without --runner-wrap (the
  // grader's: the reference is the course's own code, built by the grader, and a student's jail
  // would have to show it to the student's runner too).
  bool profile_reference_unwrapped = false;
  std::optional<std::vector<size_t>> profile_size;
};

// Parses argv. Throws UsageError with a message naming the problem and the fix.
Options parse_options(int argc, const char* const* argv);

// "1025" -> {1025}; "1000x1000" -> {1000, 1000}; "2^30" -> {1073741824}. Throws UsageError.
std::vector<size_t> parse_size(const std::string& text);

std::string usage_text(const std::string& program, int lab, const std::string& size_syntax);

struct UsageError {
  std::string message;
};

}  // namespace cudalab
