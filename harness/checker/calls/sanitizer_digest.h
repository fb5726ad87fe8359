// CHECK=race and CHECK=asan on the CPU backend: the kernel runner is built with
// ThreadSanitizer or AddressSanitizer, whose reports are long (a data race in a 1024-thread
// block prints thousands of lines of fiber stacks). The checker has them written to files
// instead of the terminal (--sanitizer-log DIR sets the runner's log_path) and turns each
// check's reports into a few lines under that check: what kind of bug, which lines of the
// lab file, which CUDA threads, how many reports alike.
//
// The reports come from the runner, so from the student's code: they are read bounded, shown
// as printable text only, and never change a verdict. The grader never passes --sanitizer-log.
#pragma once
#include <string>
#include <vector>

namespace cudalab {

// The runner's environment for reports into `dir` (TSAN_OPTIONS and ASAN_OPTIONS, each with
// log_path added to what the environment already gives).
std::vector<std::string> sanitizer_log_env(const std::string& dir);

// One line per distinct finding (same kind, same lines of the lab file), with a count.
struct SanitizerFinding {
  std::string key;  // kind and locations: the same bug in another check has the same key
  std::string text;  // "a data race in shared memory: thread (1,0,0) writes at lab2.cu:116 ..."
  size_t reports = 0;
};
std::vector<SanitizerFinding> digest_sanitizer_reports(const std::string& text);

// Reads and removes the report files in `dir` (log_path's "report.<pid>" files), digested;
// their full text is added to sanitizer_full_log(dir).
std::string sanitizer_full_log(const std::string& dir);
// Reads and removes the report files in `dir`, digested.
std::vector<SanitizerFinding> take_sanitizer_reports(const std::string& dir);

}  // namespace cudalab
