// summary.json and the closing lines: how many passed, how many failed, and why.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "scoring.h"
#include "util.h"
#include "writers.h"

namespace grading {

std::vector<std::string> failure_reasons(const StudentResult& r) {
  if (r.verdict == kNoSubmission) return {"no usable lab file (empty, missing or more than one)"};
  if (r.verdict == kUnreadable) return {"the file is not readable source text"};
  if (r.verdict == kBuildFailed) return {"does not compile"};
  if (r.verdict == kRejected) return {"rejected: " + r.rule};
  // One reason per kind, not per check: "wrong answers" counts students, not checks.
  std::set<std::string> out;
  for (const auto& c : r.checks) {
    if (c.status == "fail") out.insert("wrong answers");
    if (c.status == "error") out.insert(ended_its_runner(c) ? "crashed or hung" : "CUDA errors");
    // A verdict over the other checks (barriers) is "not judged" when none of them passed: that
    // is those checks' failure, not a reason of its own.
    if (c.status == "not_run" && c.cause != "not_judged") out.insert("checks that could not run");
  }
  if (out.empty() && !r.reason.empty()) out.insert("no report from the full run");
  return {out.begin(), out.end()};
}

nlohmann::json summary_json(const std::vector<StudentResult>& results, const Rubric& rubric, const LabInfo& lab,
                            const RunFacts& facts) {
  using nlohmann::json;
  std::map<std::string, int> verdicts, reasons, backends, failed_checks;
  size_t passed = 0;
  double total = 0, maximum = 0;
  json students = json::array();
  for (const auto& r : results) {
    const Score s = score(r, rubric);
    ++verdicts[r.verdict];
    ++backends[r.backend];
    if (s.correct) ++passed;
    total += s.total;
    maximum = std::max(maximum, s.maximum);
    for (const auto& why : failure_reasons(r)) ++reasons[why];
    if (r.verdict == kGraded)
      for (const auto& c : r.checks)
        if (c.status != "pass" && c.status != "skipped") ++failed_checks[c.id];
    json checks = json::object();
    for (const auto& c : r.checks) checks[c.id] = c.status;
    const SpeedScore& sp = s.speed;
    json speed = {{"status", sp.status},
                  {"points", sp.points},
                  {"max_points", sp.max_points},
                  {"student_ms", optional_json(r.student_ms)},
                  {"reference_ms", optional_json(r.reference_ms)},
                  {"naive_ms", optional_json(r.naive_ms)},
                  {"vs_reference", sp.status == "graded" ? json(sp.ratio) : json(nullptr)},
                  {"speedup_over_naive", sp.speedup > 0 ? json(sp.speedup) : json(nullptr)}};
    auto find_or_empty = [](const std::map<std::string, std::string>& m, const std::string& k) {
      auto it = m.find(k);
      return it == m.end() ? std::string() : it->second;
    };
    students.push_back({{"student", r.student},
                        {"pseudonym", find_or_empty(facts.pseudonyms, r.student)},
                        {"total", s.total},
                        {"maximum", s.maximum},
                        {"verdict", r.verdict},
                        {"correct", s.correct},
                        {"backend", r.backend},
                        {"reasons", failure_reasons(r)},
                        {"checks", checks},
                        {"speed", speed},
                        {"source", find_or_empty(facts.sources, r.student)}});
  }
  std::vector<std::pair<std::string, int>> common(reasons.begin(), reasons.end());
  std::stable_sort(common.begin(), common.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  json top = json::array();
  for (size_t i = 0; i < common.size() && i < 8; ++i) top.push_back({{"reason", common[i].first}, {"students", common[i].second}});
  json check_list = json::array();
  for (const auto& c : facts.checks)
    check_list.push_back({{"id", c.id}, {"title", c.title}, {"hidden", rubric.hidden.count(c.id) > 0},
                          {"points", rubric.points_for(c.id)}});
  // The speed rule in words, from any graded student (all share it); else the rubric's own.
  std::string speed_rule;
  for (const auto& r : results)
    if (const Score s = score(r, rubric); s.speed.status == "graded") {
      speed_rule = s.speed.rule;
      break;
    }
  json ref = json::object();
  for (const auto& [gpu, ms] : facts.reference_ms) ref[gpu.empty() ? "cpu" : "gpu " + gpu] = ms;
  return {{"lab", lab.lab},
          {"title", lab.title},
          {"rubric", rubric.path},
          {"backend", facts.backend},
          {"gpus", facts.gpus},
          {"generated_at", now_utc_iso8601()},
          {"students", results.size()},
          {"passed", passed},
          {"failed", results.size() - passed},
          {"graded_this_run", facts.graded_now},
          {"resumed", facts.resumed},
          {"average", results.empty() ? 0.0 : total / double(results.size())},
          {"maximum", maximum},
          {"verdicts", verdicts},
          {"backends", backends},
          {"most_common_failures", top},
          {"failed_checks", failed_checks},
          {"reference_ms", ref},
          {"checks", check_list},
          {"speed_rule", speed_rule},
          {"stub", facts.stub},
          {"seconds", facts.seconds},
          {"time_by_step", facts.time_by_step},
          {"ignored_entries", facts.ignored},
          {"results", students}};
}

std::string closing_summary(const nlohmann::json& s) {
  std::ostringstream o;
  o << "\nLab " << s["lab"].get<int>() << ": " << s["students"].get<size_t>() << " students, " << s["passed"].get<size_t>()
    << " passed every check, " << s["failed"].get<size_t>() << " did not";
  o << " (" << s["graded_this_run"].get<size_t>() << " graded now, " << s["resumed"].get<size_t>()
    << " kept from an earlier run) in " << human_seconds(s["seconds"].get<double>()) << " on the "
    << (s["backend"] == "cuda" ? "GPU" : "CPU backend") << ".\n";
  if (!s["most_common_failures"].empty()) {
    o << "Most common reasons for lost points:\n";
    for (const auto& f : s["most_common_failures"])
      o << "  " << f["students"].get<int>() << " x " << f["reason"].get<std::string>() << "\n";
  }
  return o.str();
}

}  // namespace grading
