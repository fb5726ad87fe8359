#include "run_report.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "student_jail.h"
#include "results/lab_report.h"
#include "safe_io/text.h"

namespace grading {

namespace {

// Why the checker left no report: it was stopped at the student's wall clock (every check
// hung, or the runner would not start), or something went wrong on the grader's side.
std::string explain_no_report(const GradingContext& ctx, const LabRun& run) {
  if (run.raw.timed_out)
    return "your code used up the time allowed for the whole run (" + std::to_string(int(ctx.run_timeout + 0.5)) +
           " s) before every check was done: endless loops, or threads waiting at a __syncthreads() that others never "
           "reach?";
  if (!run.raw.started) return "the checker could not start (" + run.raw.start_error + "); tell your instructor";
  return "the checker " + run.raw.describe() + " without a report (" + run.problem + "); tell your instructor";
}

// Whether the jail's report (its JSON) says the memory limit was reached: a field, not a sentence.
bool memory_limit_reached(const std::string& isolation_report) {
  const nlohmann::json j = nlohmann::json::parse(isolation_report, nullptr, false);
  return j.is_object() && j.value("memory_limit_reached", false);
}

}  // namespace

void note_run_output(const GradingContext& ctx, const LabRun& run, const fs::path& dir, StudentResult& r) {
  r.run_log = ctx.rubric.hidden.empty()
                  ? clip_text(without_grader_paths(run.raw.output_with_note(), ctx, dir), 32 << 10)
                  : std::string();
  // How much it printed is the program's choice: with hidden checks in the run, the count
  // could spell out a hidden input (its size, say), so it is not given.
  if (run.raw.output_truncated())
    r.notes.push_back(ctx.rubric.hidden.empty()
                          ? "Your program printed " + std::to_string(run.raw.output_bytes) +
                                " bytes; only the beginning was kept."
                          : "Your program printed more than " + std::to_string(ctx.rubric.limits.output_kb) +
                                " KiB; only the beginning was kept.");
  if (memory_limit_reached(run.runner_isolation))
    r.notes.push_back("Your code reached the memory limit (" + std::to_string(ctx.rubric.limits.memory_mb) +
                      " MiB for all its processes together) and was stopped.");
}

std::vector<CheckOutcome> checks_of_run(const GradingContext& ctx, const LabRun& run, StudentResult& r,
                                        std::string& problem) {
  std::vector<CheckOutcome> checks;
  if (run.has_report) {
    try {
      LabReport rep = parse_lab_report(run.report_json);
      r.timing_status = rep.timing_status;
      r.timing_note = rep.timing_note;
      r.student_ms = rep.student_ms;
      r.naive_ms = rep.naive_ms;
      return rep.checks;
    } catch (const ReportSchemaError&) {
      throw;
    } catch (const std::exception& e) {
      problem = std::string("the checker's report could not be read (") + e.what() + "); tell your instructor";
    }
  } else if (run.raw.timed_out) {
    problem = explain_no_report(ctx, run);
  } else {
    // The trusted checker always reports, whatever the runner does: without a report, the
    // trouble is the grader's. No result is saved, so the next run grades this student again.
    throw std::runtime_error(explain_no_report(ctx, run) + "\n" + clip_text(run.raw.output_with_note(), 4096));
  }
  // The checks are the checker's (the same list for everyone).
  for (const auto& ref : ctx.reference_checks) {
    CheckOutcome c = ref;
    c.details.clear();
    c.status = ref.status == "skipped" ? "skipped" : "error";
    c.cause = ref.status == "skipped" ? ref.cause : run.raw.timed_out ? "time_limit" : "checker_error";
    c.message = ref.status == "skipped" ? ref.message : "not run: " + problem;
    checks.push_back(c);
  }
  return checks;
}

void clean_check_words(const GradingContext& ctx, const fs::path& dir, std::vector<CheckOutcome>& checks) {
  for (auto& c : checks) {
    c.message = without_grader_paths(c.message, ctx, dir);
    for (auto& d : c.details) d = without_grader_paths(d, ctx, dir);
    if (!ctx.rubric.hidden.count(c.id)) {
      c.message = without_hidden_check_ids(c.message, ctx.rubric.hidden);
      for (auto& d : c.details) d = without_hidden_check_ids(d, ctx.rubric.hidden);
    }
  }
}

void reject_forbidden_calls(const GradingContext& ctx, StudentResult& r) {
  for (const auto& c : r.checks) {
    if (c.cause != "forbidden_call") continue;
    r.verdict = kRejected;
    r.rule = "system_call";
    r.reason = (ctx.rubric.hidden.count(c.id) ? "In a hidden check, " : "In check " + c.id + ", ") + c.message + ".";
    return;
  }
}

void note_if_stub(StudentResult& r) {
  r.reason =
      looks_handed_in_as_stub(r.checks)
          ? "stub: no check's output was ever written; the lab looks handed in as it was given out (TODOs not done)"
          : "";
}

bool looks_handed_in_as_stub(const std::vector<CheckOutcome>& checks) {
  size_t failed = 0, unwritten = 0, passed = 0;
  for (const auto& c : checks) {
    passed += c.status == "pass";
    if (c.status == "fail" || c.status == "error") {
      ++failed;
      unwritten += c.cause == "unwritten_output";
    }
  }
  return !passed && failed && unwritten == failed;
}

std::string without_hidden_check_ids(std::string text, const std::set<std::string>& hidden) {
  // Whole ids only: a hidden "million" is not inside a visible "million_and_change".
  auto id_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const std::string replacement = "a hidden check";
  for (const auto& id : hidden) {
    for (const std::string& from : {"check " + id, id}) {
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
        const size_t end = at + from.size();
        if ((at > 0 && id_char(text[at - 1])) || (end < text.size() && id_char(text[end]))) {
          at = end;
          continue;
        }
        text.replace(at, from.size(), replacement);
        at += replacement.size();
      }
    }
  }
  return text;
}

}  // namespace grading
