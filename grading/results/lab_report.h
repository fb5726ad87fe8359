// The checker's JSON report (docs/architecture.md), read into check outcomes: fields only (each
// check's status and cause), never its sentences.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "result.h"

namespace grading {

// The checker's "why is it slow" section (its report's "profile", with --profile-runner).
struct LabProfile {
  bool ran = false;
  std::string size, problem, limiter, first_sentence, text;
};

struct LabReport {
  int lab = 0;
  std::string backend;
  std::vector<CheckOutcome> checks;
  std::string timing_status, timing_note;
  std::optional<double> student_ms;  // the timing row whose role is "student"
  std::optional<double> naive_ms;  // the first row whose role is "baseline": the harness's naive kernel
  std::string device_name;
  std::optional<LabProfile> profile;  // present when the run was asked for one
};

// The report schema this grader reads (the report's "cudalab" field).
inline constexpr int kReportSchema = 2;

// A report of another schema: a checker and a grader from different versions of the course,
// which is the instructor's to fix (rebuild), never a student's verdict.
struct ReportSchemaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws std::runtime_error naming what is wrong when the text is not a report, and
// ReportSchemaError when it is a report of another schema.
LabReport parse_lab_report(const std::string& json_text);

}  // namespace grading
