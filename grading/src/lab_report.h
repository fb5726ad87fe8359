// The lab binary's JSON report (docs/architecture.md, schema 1), read into check outcomes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "result.h"

namespace grading {

struct LabReport {
  int lab = 0;
  std::string backend;
  std::vector<CheckOutcome> checks;
  std::string timing_status, timing_note;
  std::optional<double> student_ms;  // the timing row whose role is "student"
  std::optional<double> naive_ms;    // the first row whose role is "baseline": the harness's naive kernel
  std::string device_name;
};

// Throws std::runtime_error naming what is wrong when the text is not a report.
LabReport parse_lab_report(const std::string& json_text);

}  // namespace grading
