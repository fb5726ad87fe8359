#include "scoring.h"

#include <cmath>
#include <cstdio>

namespace grading {

std::string format_points(double p) {
  char buf[32];
  if (std::fabs(p - std::round(p)) < 1e-9)
    std::snprintf(buf, sizeof buf, "%.0f", p);
  else
    std::snprintf(buf, sizeof buf, "%.2f", p);
  std::string s = buf;
  if (s.find('.') != std::string::npos)
    while (s.back() == '0') s.pop_back();
  return s;
}

Score score(const StudentResult& r, const Rubric& rubric) {
  Score s;
  bool all_pass = !r.checks.empty();
  for (const auto& c : r.checks) {
    CheckScore cs;
    cs.id = c.id;
    cs.title = c.title;
    cs.status = c.status;
    cs.hidden = rubric.hidden.count(c.id) > 0;
    cs.max_points = rubric.points_for(c.id);
    // A check the backend cannot run (too large for the CPU emulator) is left out of the
    // maximum rather than counted as lost: every student on that backend has it skipped.
    cs.counted = c.status != "skipped";
    cs.points = (cs.counted && c.status == "pass" && r.verdict == kGraded) ? cs.max_points : 0;
    if (cs.counted) {
      s.maximum += cs.max_points;
      s.total += cs.points;
      if (c.status != "pass" || r.verdict != kGraded) all_pass = false;
    }
    s.checks.push_back(cs);
  }
  s.correct = all_pass && r.verdict == kGraded;

  SpeedScore& sp = s.speed;
  sp.max_points = rubric.speed_points;
  if (rubric.speed_points <= 0) {
    sp.status = "not graded";
    sp.note = "this lab has no points for speed";
  } else if (r.backend != "cuda") {
    sp.status = "not graded";
    sp.note = "graded on the CPU backend, which checks correctness only: speed is not graded";
  } else {
    sp.counted = true;
    s.maximum += sp.max_points;
    if (!s.correct) {
      sp.status = "no points";
      sp.note = "speed points need every check to pass first";
    } else if (!r.student_ms || !r.reference_ms || *r.student_ms <= 0 || *r.reference_ms <= 0) {
      sp.status = "no points";
      sp.note = "your code could not be timed" + (r.timing_note.empty() ? std::string() : ": " + r.timing_note);
    } else {
      sp.status = "graded";
      sp.ratio = *r.student_ms / *r.reference_ms;
      sp.points = rubric.speed_score(sp.ratio);
      s.total += sp.points;
      char buf[200];
      std::snprintf(buf, sizeof buf, "%.3f ms against the reference's %.3f ms (%.2fx); full points at %.2gx or better, none at %.3gx",
                    *r.student_ms, *r.reference_ms, sp.ratio, rubric.full_at, rubric.zero_at);
      sp.note = buf;
    }
  }
  s.total = std::round(s.total * 100) / 100;
  s.maximum = std::round(s.maximum * 100) / 100;
  return s;
}

}  // namespace grading
