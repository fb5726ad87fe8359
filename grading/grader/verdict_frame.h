// Reads the lab binary's report out of what came through the verdict channel.
#pragma once
#include <string>

namespace grading {

struct Verdict {
  bool ok = false;
  std::string json;  // the report, when ok
  std::string problem;  // why there is none, for the feedback ("the program ended before ...")
};

// Believes exactly one well-formed frame carrying `secret` (see harness/checker/report/report_channel.h).
// Bytes around it are ignored: they can only come from the submission. Two frames mean
// someone else wrote one, so neither is believed.
Verdict find_verdict(const std::string& channel_bytes, const std::string& secret);

}  // namespace grading
