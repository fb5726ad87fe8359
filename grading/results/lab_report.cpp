#include "lab_report.h"

#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace grading {

using nlohmann::json;

namespace {

std::string number_text(const json& v) {
  if (v.is_number_integer()) return v.dump();  // a count: 4294967295, not 4.2949673e+09
  if (v.is_number()) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", v.get<double>());
    return buf;
  }
  if (v.is_null()) return "NaN";  // JSON has no NaN: the harness writes null for it
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

LabReport parse_lab_report(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(std::string("the report is not JSON: ") + e.what());
  }
  try {
    if (const int schema = j.at("cudalab").get<int>(); schema != kReportSchema)
      throw ReportSchemaError("the checker wrote a report of schema " + std::to_string(schema) +
                              ", and this grader reads " + std::to_string(kReportSchema) +
                              ": rebuild the grader and the checker from one checkout "
                              "(make grading-setup)");
    LabReport r;
    r.lab = j.at("lab").get<int>();
    r.backend = j.value("backend", "");
    if (j.contains("device") && j["device"].is_object()) r.device_name = j["device"].value("name", "");
    for (const auto& c : j.at("checks")) {
      CheckOutcome o;
      o.id = c.at("id").get<std::string>();
      o.title = c.value("title", "");
      o.status = c.at("status").get<std::string>();
      o.cause = c.at("cause").get<std::string>();
      o.judged_by = c.at("judged_by").get<std::string>();
      o.message = c.value("message", "");
      if (c.contains("notes"))
        for (const auto& n : c["notes"])
          if (n.is_string()) o.details.push_back(n.get<std::string>());
      if (c.contains("mismatches")) {
        for (const auto& m : c["mismatches"]) {
          std::string line =
              "at " + (m.contains("where") ? m["where"].get<std::string>() : number_text(m.value("index", json(0)))) +
              ": expected " + number_text(m.value("expected", json(nullptr))) + ", got " +
              number_text(m.value("got", json(nullptr)));
          std::string owner = m.value("owner", "");
          if (!owner.empty()) line += " (" + owner + ")";
          o.details.push_back(line);
        }
      }
      r.checks.push_back(o);
    }
    if (j.contains("timing") && j["timing"].is_object()) {
      const json& t = j["timing"];
      r.timing_status = t.value("status", "");
      r.timing_note = t.value("note", "");
      // Only a measured timing has a time to grade ("wrong_answer": the timed run was wrong).
      if (r.timing_status == "measured" && t.contains("rows"))
        for (const auto& row : t["rows"]) {
          if (!row.contains("ms") || !row["ms"].is_number()) continue;
          const std::string role = row.value("role", "");
          if (role == "student" && !r.student_ms) r.student_ms = row["ms"].get<double>();
          if (role == "baseline" && !r.naive_ms) r.naive_ms = row["ms"].get<double>();
        }
    }
    if (j.contains("profile") && j["profile"].is_object()) {
      const json& p = j["profile"];
      LabProfile lp;
      lp.ran = p.value("ran", false);
      lp.size = p.value("size", "");
      lp.problem = p.value("problem", "");
      lp.limiter = p.value("limiter", "");
      lp.first_sentence = p.value("first_sentence", "");
      lp.text = p.value("text", "");
      r.profile = lp;
    }
    return r;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("the report is missing a field: ") + e.what());
  }
}

}  // namespace grading
