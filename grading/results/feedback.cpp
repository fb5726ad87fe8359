// feedback.md: what a student reads. Warm, precise, short; hidden checks only as a count.
#include <sstream>

#include "scoring.h"
#include "util.h"
#include "writers.h"

namespace grading {
namespace {

const char* status_word(const std::string& s) {
  if (s == "pass") return "passed";
  if (s == "fail") return "failed";
  if (s == "error") return "error";
  if (s == "skipped") return "not graded here";
  return "not run";
}

std::string verdict_heading(const StudentResult& r) {
  if (r.verdict == kNoSubmission) return "We could not find your lab file";
  if (r.verdict == kUnreadable) return "We could not read your lab file";
  if (r.verdict == kRejected) return "Your file breaks a rule of the lab";
  if (r.verdict == kBuildFailed) return "Your file does not compile";
  return "";
}

// The program's output without the lines about hidden checks (the harness's table names
// every check, and prints its details indented below it).
std::string without_hidden(const std::string& log, const Rubric& rubric) {
  if (rubric.hidden.empty()) return log;
  std::istringstream in(log);
  std::string line, out;
  bool skipping = false;
  while (std::getline(in, line)) {
    bool names_hidden = false;
    for (const auto& id : rubric.hidden) names_hidden |= line.find(id) != std::string::npos;
    if (names_hidden) {
      skipping = true;
      continue;
    }
    if (skipping && line.rfind("      ", 0) == 0) continue;  // its detail lines
    skipping = false;
    out += line + "\n";
  }
  return out;
}

void write_heading(std::ostream& o, const StudentResult& r, const Score& s, const LabInfo& lab) {
  o << "# Lab " << lab.lab << (lab.title.empty() ? "" : ": " + lab.title) << "\n\n";
  o << "Feedback for **" << r.student << "**";
  if (!r.file.empty()) o << " on `" << fs::path(r.file).filename().string() << "`";
  o << ".\n\n";
  o << "**Score: " << format_points(s.total) << " / " << format_points(s.maximum) << "**\n\n";
}

// No checks ran: the file was missing, unreadable, rejected or did not compile.
void write_not_graded(std::ostream& o, const StudentResult& r) {
  o << "## " << verdict_heading(r) << "\n\n" << r.reason << "\n\n";
  if ((r.verdict == kBuildFailed || r.rule == "link_contract") && !r.build_log.empty())
    o << "The compiler said:\n\n```\n" << clip_text(r.build_log, 8 << 10) << "```\n\n";
  if (r.verdict != kNoSubmission)
    o << "Fix this and submit again: your checks run as soon as the file is accepted.\n\n";
}

// The visible checks, one row each; the hidden ones only as a count and their points.
void write_check_table(std::ostream& o, const Score& s) {
  size_t visible = 0, passed = 0, hidden_count = 0;
  double hidden_points = 0, hidden_max = 0;
  for (const auto& c : s.checks) {
    if (!c.counted) continue;
    if (c.hidden) {
      ++hidden_count;
      hidden_points += c.points;
      hidden_max += c.max_points;
    } else {
      ++visible;
      passed += c.status == "pass";
    }
  }
  o << "## Checks\n\n| check | what it tests | result | points |\n|---|---|---|---|\n";
  for (const auto& c : s.checks) {
    if (c.hidden) continue;
    o << "| `" << c.id << "` | " << c.title << " | " << status_word(c.status) << " | "
      << (c.counted ? format_points(c.points) + " / " + format_points(c.max_points) : std::string("-")) << " |\n";
  }
  if (hidden_count)
    o << "\nHidden checks: " << hidden_count << " more, worth " << format_points(hidden_max) << " points; you earned "
      << format_points(hidden_points) << " of them.\n";
  o << "\n" << passed << " of " << visible << " visible checks passed.\n\n";
}

// Each visible check that did not pass: the checker's message and its first details.
void write_what_went_wrong(std::ostream& o, const StudentResult& r, const Rubric& rubric) {
  bool header = false;
  for (const auto& c : r.checks) {
    if (c.status == "pass" || c.status == "skipped" || rubric.hidden.count(c.id)) continue;
    if (!header) {
      o << "## What went wrong\n\n";
      header = true;
    }
    o << "**`" << c.id << "`**: " << c.message << "\n";
    for (size_t k = 0; k < c.details.size() && k < 8; ++k) o << "- " << c.details[k] << "\n";
    o << "\n";
  }
}

// A visible check that passed with something still worth fixing (the races check, over a race that
// changed no answer): its note, for no points.
void write_worth_fixing(std::ostream& o, const StudentResult& r, const Rubric& rubric) {
  const std::string mark = "worth fixing, for no points: ";
  bool header = false;
  for (const auto& c : r.checks) {
    if (c.status != "pass" || rubric.hidden.count(c.id)) continue;
    for (const auto& d : c.details) {
      if (d.rfind(mark, 0) != 0) continue;
      if (!header) o << "## Worth fixing (no points taken)\n\n";
      header = true;
      o << "**`" << c.id << "`**: " << d.substr(mark.size()) << "\n\n";
    }
  }
}

void write_graded(std::ostream& o, const StudentResult& r, const Score& s, const Rubric& rubric) {
  if (s.correct)
    o << "Every check passed. Well done.\n\n";
  else if (!r.reason.empty())
    o << "Something went wrong while your code ran: " << r.reason << ". Each check was then run on its own, so the "
      << "others still count.\n\n";
  write_check_table(o, s);
  write_what_went_wrong(o, r, rubric);
  write_worth_fixing(o, r, rubric);
  bool any_skipped = false;
  for (const auto& c : s.checks) any_skipped |= !c.counted;
  if (any_skipped)
    o << "Checks marked \"not graded here\" are too large for the CPU backend this run used; they count on a GPU.\n\n";
}

void write_speed_and_notes(std::ostream& o, const StudentResult& r, const Score& s) {
  o << "## Speed\n\n";
  if (s.speed.status == "graded")
    o << "Your kernel: " << s.speed.note << ". Speed points: " << format_points(s.speed.points) << " / "
      << format_points(s.speed.max_points) << " (" << s.speed.rule << ").\n\n";
  else
    o << "Not graded: " << s.speed.note << ".\n\n";
  if (!r.notes.empty()) {
    o << "## Notes\n\n";
    for (const auto& n : r.notes) o << "- " << n << "\n";
    o << "\n";
  }
}

// --profile: "why is it slow", estimated on the CPU backend (the checker's section), or why it
// could not be made. No points: said so in the heading and again below it.
void write_profile(std::ostream& o, const StudentResult& r) {
  if (r.profile_status.empty()) return;
  o << "## " << kProfileHeading << "\n\n";
  if (r.profile_status == "made") {
    // The text is the trusted checker's, but it goes into a code block whole: no fence of its own.
    std::string text = r.profile_text;
    for (size_t at = text.find("```"); at != std::string::npos; at = text.find("```", at)) text.replace(at, 3, "'''");
    if (!text.empty() && text.back() != '\n') text += "\n";
    o << "An estimate from the CPU backend's emulator, which counts per source line what a GPU would do, of your "
      << "kernels beside the reference solution's" << (r.profile_size.empty() ? "" : " at size " + r.profile_size)
      << ". Advice only: it changes no points.\n\n```\n"
      << text << "```\n\n";
  } else {
    o << "It could not be made this time: " << r.profile_text << ". That costs you nothing: your points are the same "
      << "without it. `make lab<N> PROFILE=1` on your own machine makes it.\n\n";
  }
}

// The program's output (a failed run only, hidden checks' lines left out), and how to replay it.
void write_output_and_footer(std::ostream& o, const StudentResult& r, const Score& s, const Rubric& rubric,
                             const LabInfo& lab) {
  if (r.verdict == kGraded && !s.correct && !r.run_log.empty())
    o << "## Your program's output\n\n```\n" << clip_text(without_hidden(r.run_log, rubric), 6 << 10) << "```\n\n";
  o << "---\nGraded " << r.graded_at << " on the " << (r.backend == "cuda" ? "GPU" : "CPU") << " backend";
  if (r.verdict == kGraded)
    o << " with seed " << r.seed << " (replay the same inputs with `make lab" << lab.lab << " ARGS=\"--seed " << r.seed
      << "\"`)";
  o << ".\n";
}

}  // namespace

std::string feedback_markdown(const StudentResult& r, const Rubric& rubric, const LabInfo& lab) {
  const Score s = score(r, rubric);
  std::ostringstream o;
  write_heading(o, r, s, lab);
  if (r.verdict != kGraded)
    write_not_graded(o, r);
  else
    write_graded(o, r, s, rubric);
  write_speed_and_notes(o, r, s);
  write_profile(o, r);
  write_output_and_footer(o, r, s, rubric, lab);
  // Everything in it may carry a submission's bytes (file names, messages, logs).
  return clean_text(o.str());
}

}  // namespace grading
