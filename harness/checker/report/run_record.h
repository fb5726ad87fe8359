// Everything one run of a lab binary found: what the terminal report prints and
// the JSON report (--json, the grader's channel) carries.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/types/suite.h"
#include "checker/types/timing_report.h"
#include "wire/protocol.h"

namespace cudalab {

// PROFILE=1's section (--profile-runner), as the JSON report carries it ("profile"): advice only.
struct ProfileRecord {
  bool asked = false;  // --profile-runner and --profile-reference given
  bool ran = false;  // a digest was made ("problem" says why not)
  std::string size;  // the size profiled ("" when none)
  std::string problem;
  std::string limiter;  // the digest's stable id ("none": nothing stands out)
  std::string first_sentence;  // the digest's first sentence
  std::string text;  // the section as the terminal shows it, without heading and indent
};

struct RunRecord {
  int lab = 0;
  std::string title;
  std::string backend;
  std::string program;  // argv[0]
  std::string source;  // the lab source file the binary was built from
  std::string tool;  // the checking tool the runner ran under (CHECK=), "" when none
  uint64_t seed = 0;
  wire::DeviceInfo device;
  std::vector<CheckOutcome> checks;
  TimingReport timing;
  ProfileRecord profile;

  size_t count(Status s) const {
    size_t c = 0;
    for (const auto& o : checks) c += o.result.status == s;
    return c;
  }
};

// The JSON report's schema version (its "cudalab" field; docs/architecture.md). Bumped whenever
// a field a program reads changes meaning or goes away: readers refuse other versions.
// 2: each check's "cause" and "judged_by".
constexpr int kReportSchema = 2;

std::string to_json(const RunRecord& record);

}  // namespace cudalab
