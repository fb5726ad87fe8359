// The report a student reads: printed as the run goes, so a slow check shows progress.
// Colour only on a terminal (and never when NO_COLOR is set).
#pragma once
#include <cstdio>
#include <string>

#include "run_record.h"

namespace cudalab {

class TerminalReport {
 public:
  TerminalReport(std::FILE* out, size_t id_width, size_t size_width);
  void header(const RunRecord& rec);
  void check(const CheckOutcome& o);
  void summary(const RunRecord& rec);
  void timing(const TimingReport& t);
  void line(const std::string& text);

 private:
  std::string paint(const std::string& text, const char* colour) const;
  std::FILE* out_;
  size_t id_width_, size_width_;
  bool colour_;
};

// Formats a time in ms with a sensible number of digits ("0.0471 ms", "23.8 ms").
std::string format_ms(double ms);

}  // namespace cudalab
