// summary.json and the closing lines: how many passed, how many failed, and why.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "scoring.h"
#include "safe_io/text.h"
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
    // A race or a barrier some threads skip is a reason of its own: it can pass every other check.
    if (c.status == "fail")
      out.insert(c.cause == "race"                 ? "races"
                 : c.cause == "barrier_divergence" ? "barrier divergence"
                                                   : "wrong answers");
    if (c.status == "error") out.insert(ended_its_runner(c) ? "crashed or hung" : "CUDA errors");
    // A verdict over the other checks (barriers) is "not judged" when none of them passed: that
    // is those checks' failure, not a reason of its own.
    if (c.status == "not_run" && c.cause != "not_judged") out.insert("checks that could not run");
  }
  if (out.empty() && !r.reason.empty()) out.insert("no report from the full run");
  return {out.begin(), out.end()};
}

namespace {

using nlohmann::json;

std::string find_or_empty(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? std::string() : it->second;
}

json speed_json(const StudentResult& r, const SpeedScore& sp) {
  return {{"status", sp.status},
          {"points", sp.points},
          {"max_points", sp.max_points},
          {"student_ms", optional_json(r.student_ms)},
          {"reference_ms", optional_json(r.reference_ms)},
          {"naive_ms", optional_json(r.naive_ms)},
          {"vs_reference", sp.status == "graded" ? json(sp.ratio) : json(nullptr)},
          {"speedup_over_naive", sp.speedup > 0 ? json(sp.speedup) : json(nullptr)}};
}

// One student's row of summary.json's "results".
json student_json(const StudentResult& r, const Score& s, const RunFacts& facts) {
  json checks = json::object();
  for (const auto& c : r.checks) checks[c.id] = c.status;
  return {{"student", r.student},
          {"pseudonym", find_or_empty(facts.pseudonyms, r.student)},
          {"total", s.total},
          {"maximum", s.maximum},
          {"verdict", r.verdict},
          {"correct", s.correct},
          {"backend", r.backend},
          {"reasons", failure_reasons(r)},
          {"checks", checks},
          {"speed", speed_json(r, s.speed)},
          {"source", find_or_empty(facts.sources, r.student)}};
}

// What the class adds up to, student by student.
struct ClassTally {
  std::map<std::string, int> verdicts, reasons, backends, failed_checks;
  size_t passed = 0;
  double total = 0, maximum = 0;
  json students = json::array();

  void add(const StudentResult& r, const Score& s, const RunFacts& facts) {
    ++verdicts[r.verdict];
    ++backends[r.backend];
    if (s.correct) ++passed;
    total += s.total;
    maximum = std::max(maximum, s.maximum);
    for (const auto& why : failure_reasons(r)) ++reasons[why];
    if (r.verdict == kGraded)
      for (const auto& c : r.checks)
        if (c.status != "pass" && c.status != "skipped") ++failed_checks[c.id];
    students.push_back(student_json(r, s, facts));
  }

  // The 8 most common reasons for lost points, most students first.
  json most_common_failures() const {
    std::vector<std::pair<std::string, int>> common(reasons.begin(), reasons.end());
    std::stable_sort(common.begin(), common.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    json top = json::array();
    for (size_t i = 0; i < common.size() && i < 8; ++i)
      top.push_back({{"reason", common[i].first}, {"students", common[i].second}});
    return top;
  }
};

json check_list_json(const RunFacts& facts, const Rubric& rubric) {
  json check_list = json::array();
  for (const auto& c : facts.checks)
    check_list.push_back({{"id", c.id},
                          {"title", c.title},
                          {"hidden", rubric.hidden.count(c.id) > 0},
                          {"points", rubric.points_for(c.id)}});
  return check_list;
}

// The speed rule in words, from any graded student (all share it); else none.
std::string speed_rule(const std::vector<StudentResult>& results, const Rubric& rubric) {
  for (const auto& r : results)
    if (const Score s = score(r, rubric); s.speed.status == "graded") return s.speed.rule;
  return "";
}

}  // namespace

nlohmann::json summary_json(const std::vector<StudentResult>& results, const Rubric& rubric, const LabInfo& lab,
                            const RunFacts& facts) {
  ClassTally tally;
  for (const auto& r : results) tally.add(r, score(r, rubric), facts);
  json ref = json::object();
  for (const auto& [gpu, ms] : facts.reference_ms) ref[gpu.empty() ? "cpu" : "gpu " + gpu] = ms;
  return {{"lab", lab.lab},
          {"title", lab.title},
          {"rubric", rubric.path},
          {"backend", facts.backend},
          {"gpus", facts.gpus},
          {"generated_at", now_utc_iso8601()},
          {"students", results.size()},
          {"passed", tally.passed},
          {"failed", results.size() - tally.passed},
          {"graded_this_run", facts.graded_now},
          {"resumed", facts.resumed},
          {"average", results.empty() ? 0.0 : tally.total / double(results.size())},
          {"maximum", tally.maximum},
          {"verdicts", tally.verdicts},
          {"backends", tally.backends},
          {"most_common_failures", tally.most_common_failures()},
          {"failed_checks", tally.failed_checks},
          {"reference_ms", ref},
          {"checks", check_list_json(facts, rubric)},
          {"speed_rule", speed_rule(results, rubric)},
          {"stub", facts.stub},
          {"seconds", facts.seconds},
          {"time_by_step", facts.time_by_step},
          {"ignored_entries", facts.ignored},
          {"results", tally.students}};
}

std::string closing_summary(const nlohmann::json& s) {
  std::ostringstream o;
  o << "\nLab " << s["lab"].get<int>() << ": " << s["students"].get<size_t>() << " students, "
    << s["passed"].get<size_t>() << " passed every check, " << s["failed"].get<size_t>() << " did not";
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
