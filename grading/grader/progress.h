// The progress line: count, current student and time left. A bar on a terminal, one line
// per finished student otherwise (logs, CI).
#pragma once
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace grading {

class Progress {
 public:
  Progress(size_t total, std::FILE* out);
  void started(const std::string& student);
  void finished(const std::string& student, const std::string& outcome);
  void done();

 private:
  void draw();
  std::mutex mutex_;
  size_t total_, done_ = 0;
  std::string current_;
  std::FILE* out_;
  bool tty_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace grading
