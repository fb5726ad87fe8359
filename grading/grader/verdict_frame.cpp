#include "verdict_frame.h"

#include "checker/report/report_channel.h"

namespace grading {

Verdict find_verdict(const std::string& bytes, const std::string& secret) {
  Verdict v;
  const std::string begin = std::string(cudalab::kVerdictFrameBegin) + secret + " ";
  const std::string end = std::string(cudalab::kVerdictFrameEnd) + secret + "\n";
  size_t at = bytes.find(begin);
  if (at == std::string::npos) {
    v.problem = "the program ended before the harness could report its checks";
    return v;
  }
  if (bytes.find(begin, at + 1) != std::string::npos) {
    v.problem = "the report reached the grader twice, so neither copy can be trusted";
    return v;
  }
  size_t p = at + begin.size();
  size_t nl = bytes.find('\n', p);
  if (nl == std::string::npos || nl == p || nl - p > 12) {
    v.problem = "the report was cut short";
    return v;
  }
  size_t len = 0;
  for (size_t i = p; i < nl; ++i) {
    if (bytes[i] < '0' || bytes[i] > '9') {
      v.problem = "the report was malformed";
      return v;
    }
    len = len * 10 + size_t(bytes[i] - '0');
  }
  size_t body = nl + 1;
  if (bytes.size() < body + len + 1 + end.size() || bytes[body + len] != '\n' ||
      bytes.compare(body + len + 1, end.size(), end) != 0) {
    v.problem = "the report was cut short";
    return v;
  }
  v.ok = true;
  v.json = bytes.substr(body, len);
  return v;
}

}  // namespace grading
