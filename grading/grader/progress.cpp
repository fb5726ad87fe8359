#include "progress.h"

#include <unistd.h>

#include "safe_io/text.h"

namespace grading {

Progress::Progress(size_t total, std::FILE* out) : total_(total), out_(out), tty_(isatty(fileno(out))) {}

void Progress::draw() {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string left =
      done_ == 0 ? "estimating" : human_seconds(elapsed / double(done_) * double(total_ - done_)) + " left";
  const int width = 30;
  int filled = total_ ? int(double(width) * double(done_) / double(total_)) : width;
  std::string bar(size_t(filled), '#');
  bar.resize(width, '.');
  std::fprintf(out_, "\r\033[K[%s] %zu/%zu  %-24.24s  %s", bar.c_str(), done_, total_, current_.c_str(), left.c_str());
  std::fflush(out_);
}

void Progress::started(const std::string& student) {
  std::lock_guard<std::mutex> lock(mutex_);
  current_ = clean_line(student);
  if (tty_) draw();
}

void Progress::finished(const std::string& student, const std::string& outcome) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  if (tty_) {
    draw();
  } else {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(out_, "[%zu/%zu] %s: %s  (%s left)\n", done_, total_, clean_line(student).c_str(),
                 clean_line(outcome).c_str(), human_seconds(elapsed / double(done_) * double(total_ - done_)).c_str());
    std::fflush(out_);
  }
}

void Progress::done() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tty_) std::fprintf(out_, "\n");
}

}  // namespace grading
