#include "result.h"

namespace grading {

using nlohmann::json;

bool ended_its_runner(const CheckOutcome& c) {
  for (const char* cause : {"crash", "time_limit", "runner_lost", "context_lost"})
    if (c.cause == cause) return true;
  return false;
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
static std::optional<double> opt_of(const json& j, const char* k) {
  if (!j.contains(k) || j[k].is_null()) return std::nullopt;
  return j[k].get<double>();
}

// 2: each check's cause and judged_by. A result of another schema is not read: its student is
// graded again.
constexpr int kResultSchema = 2;

// Written out field by field (not with NLOHMANN_DEFINE_TYPE_*): the schema number is checked
// on reading, and this nlohmann-json (3.11.2) has no std::optional conversion for the timings.
json to_json(const StudentResult& r) {
  return {{"schema", kResultSchema},
          {"student", r.student},
          {"origin", r.origin},
          {"file", r.file},
          {"key", r.key},
          {"verdict", r.verdict},
          {"reason", r.reason},
          {"rule", r.rule},
          {"backend", r.backend},
          {"gpu", r.gpu},
          {"seed", r.seed},
          {"notes", r.notes},
          {"checks", r.checks},
          {"timing_status", r.timing_status},
          {"timing_note", r.timing_note},
          {"student_ms", optional_json(r.student_ms)},
          {"reference_ms", optional_json(r.reference_ms)},
          {"naive_ms", optional_json(r.naive_ms)},
          {"reference_naive_ms", optional_json(r.reference_naive_ms)},
          {"reference_noise", optional_json(r.reference_noise)},
          {"profile_status", r.profile_status},
          {"profile_text", r.profile_text},
          {"profile_first", r.profile_first},
          {"profile_size", r.profile_size},
          {"build_log", r.build_log},
          {"run_log", r.run_log},
          {"seconds", r.seconds},
          {"graded_at", r.graded_at}};
}

StudentResult result_from_json(const json& j) {
  if (j.at("schema").get<int>() != kResultSchema) throw json::other_error::create(501, "unknown result schema", &j);
  StudentResult r;
  j.at("student").get_to(r.student);
  j.at("origin").get_to(r.origin);
  j.at("file").get_to(r.file);
  j.at("key").get_to(r.key);
  j.at("verdict").get_to(r.verdict);
  j.at("reason").get_to(r.reason);
  j.at("rule").get_to(r.rule);
  j.at("backend").get_to(r.backend);
  j.at("gpu").get_to(r.gpu);
  j.at("seed").get_to(r.seed);
  j.at("notes").get_to(r.notes);
  j.at("checks").get_to(r.checks);
  j.at("timing_status").get_to(r.timing_status);
  j.at("timing_note").get_to(r.timing_note);
  r.student_ms = opt_of(j, "student_ms");
  r.reference_ms = opt_of(j, "reference_ms");
  r.naive_ms = opt_of(j, "naive_ms");  // absent in results saved before the naive anchor
  r.reference_naive_ms = opt_of(j, "reference_naive_ms");
  r.reference_noise = opt_of(j, "reference_noise");  // absent in results saved before the anchors
  // Absent in results saved without --profile (or before it existed).
  r.profile_status = j.value("profile_status", "");
  r.profile_text = j.value("profile_text", "");
  r.profile_first = j.value("profile_first", "");
  r.profile_size = j.value("profile_size", "");
  j.at("build_log").get_to(r.build_log);
  j.at("run_log").get_to(r.run_log);
  j.at("seconds").get_to(r.seconds);
  j.at("graded_at").get_to(r.graded_at);
  return r;
}

}  // namespace grading
