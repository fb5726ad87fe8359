#include "result.h"

namespace grading {

using nlohmann::json;

static json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
static std::optional<double> opt_of(const json& j, const char* k) {
  if (!j.contains(k) || j[k].is_null()) return std::nullopt;
  return j[k].get<double>();
}

json to_json(const StudentResult& r) {
  json checks = json::array();
  for (const auto& c : r.checks)
    checks.push_back({{"id", c.id}, {"title", c.title}, {"status", c.status}, {"message", c.message},
                      {"details", c.details}, {"own_process", c.own_process}});
  return {{"schema", 1},           {"student", r.student},       {"origin", r.origin},
          {"file", r.file},        {"key", r.key},               {"verdict", r.verdict},
          {"reason", r.reason},    {"rule", r.rule},             {"backend", r.backend},
          {"gpu", r.gpu},          {"seed", r.seed},             {"notes", r.notes},
          {"checks", checks},      {"timing_status", r.timing_status}, {"timing_note", r.timing_note},
          {"student_ms", opt(r.student_ms)}, {"reference_ms", opt(r.reference_ms)},
          {"build_log", r.build_log}, {"run_log", r.run_log}, {"seconds", r.seconds},
          {"graded_at", r.graded_at}};
}

StudentResult result_from_json(const json& j) {
  if (j.at("schema").get<int>() != 1) throw json::other_error::create(501, "unknown result schema", &j);
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
  for (const auto& c : j.at("checks")) {
    CheckOutcome o;
    c.at("id").get_to(o.id);
    c.at("title").get_to(o.title);
    c.at("status").get_to(o.status);
    c.at("message").get_to(o.message);
    c.at("details").get_to(o.details);
    c.at("own_process").get_to(o.own_process);
    r.checks.push_back(o);
  }
  j.at("timing_status").get_to(r.timing_status);
  j.at("timing_note").get_to(r.timing_note);
  r.student_ms = opt_of(j, "student_ms");
  r.reference_ms = opt_of(j, "reference_ms");
  j.at("build_log").get_to(r.build_log);
  j.at("run_log").get_to(r.run_log);
  j.at("seconds").get_to(r.seconds);
  j.at("graded_at").get_to(r.graded_at);
  return r;
}

}  // namespace grading
