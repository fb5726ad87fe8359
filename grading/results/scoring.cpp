#include "scoring.h"

#include <cmath>
#include <cstdio>

namespace grading {

// The reference must beat the naive kernel by this much for the naive kernel to anchor the
// speed scale (below it, run-to-run noise would be a large part of the scale).
constexpr double kMinimumAnchorGap = 1.25;

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

namespace {

// The checks' points: a passed check earns its points, but only in a graded run. Returns
// whether every counted check passed.
bool score_checks(const StudentResult& r, const Rubric& rubric, Score& s) {
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
  return all_pass;
}

// Speed on the naive anchor's scale: from the naive kernel's speed to within full_at of the
// reference's, each measured beside the naive kernel in its own run.
void speed_vs_naive(const StudentResult& r, const Rubric& rubric, SpeedScore& sp) {
  char buf[400];
  sp.points = rubric.speed_points_for(rubric.speed_fraction_vs_naive(sp.speedup, sp.reference_speedup));
  if (r.reference_noise)
    std::snprintf(buf, sizeof buf,
                  "%.3f ms: %.2fx as fast as the harness's naive kernel; the reference solution is %.2fx (both "
                  "timed by the grader just before and just after your kernel, whose two timings of the reference "
                  "were %.2f%% apart: the timing's noise)",
                  *r.student_ms, sp.speedup, sp.reference_speedup, 100 * *r.reference_noise);
  else
    std::snprintf(buf, sizeof buf,
                  "%.3f ms: %.2fx as fast as the harness's naive kernel; the reference solution is %.2fx (each "
                  "timed beside the naive kernel in its own run)",
                  *r.student_ms, sp.speedup, sp.reference_speedup);
  sp.note = buf;
  std::snprintf(buf, sizeof buf,
                "no points at the naive kernel's speed, full points within %.2gx of the reference's, %s in between, "
                "in steps of %g points (coarser than the timing's noise)",
                rubric.full_at,
                rubric.curve == "log" ? "on a log scale (each halving of time counts the same)" : "linearly",
                rubric.step);
  sp.rule = buf;
}

// Speed on the reference's scale alone: full points at full_at times its time, none at zero_at.
void speed_vs_reference(const StudentResult& r, const Rubric& rubric, SpeedScore& sp) {
  char buf[400];
  sp.points = rubric.speed_points_for(rubric.speed_fraction_vs_reference(sp.ratio));
  std::snprintf(buf, sizeof buf, "%.3f ms against the reference's %.3f ms (%.2fx)", *r.student_ms, *r.reference_ms,
                sp.ratio);
  sp.note = buf;
  std::snprintf(buf, sizeof buf,
                "full points at %.2gx the reference's time or better, none at %.3gx, %s in between, in steps of %g "
                "points",
                rubric.full_at, rubric.zero_at, rubric.curve == "log" ? "on a log scale" : "linearly", rubric.step);
  sp.rule = buf;
  if (rubric.anchor == "naive")
    sp.rule += sp.reference_speedup > 0 ? " (this lab's naive kernel is not clearly slower than the reference, so "
                                          "the reference alone sets the scale)"
                                        : " (the naive kernel's time was not measured)";
}

// A correct, timed kernel's speed points.
void speed_points(const StudentResult& r, const Rubric& rubric, SpeedScore& sp) {
  sp.status = "graded";
  sp.ratio = *r.student_ms / *r.reference_ms;
  if (r.naive_ms && r.reference_naive_ms && *r.naive_ms > 0 && *r.reference_naive_ms > 0) {
    sp.speedup = *r.naive_ms / *r.student_ms;
    sp.reference_speedup = *r.reference_naive_ms / *r.reference_ms;
  }
  // The naive anchor needs a naive kernel clearly slower than the reference: where the
  // lab's kernel is the naive one (lab 1), the scale would have no length.
  if (rubric.anchor == "naive" && sp.reference_speedup >= kMinimumAnchorGap)
    speed_vs_naive(r, rubric, sp);
  else
    speed_vs_reference(r, rubric, sp);
}

void score_speed(const StudentResult& r, const Rubric& rubric, Score& s) {
  SpeedScore& sp = s.speed;
  sp.max_points = rubric.speed_points;
  if (rubric.speed_points <= 0) {
    sp.status = "not graded";
    sp.note = "this lab has no points for speed";
    return;
  }
  if (r.backend != "cuda") {
    sp.status = "not graded";
    sp.note = "graded on the CPU backend, which checks correctness only: speed is not graded";
    return;
  }
  sp.counted = true;
  s.maximum += sp.max_points;
  if (!s.correct) {
    sp.status = "no points";
    sp.note = "speed points need every check to pass first";
  } else if (!r.student_ms || !r.reference_ms || *r.student_ms <= 0 || *r.reference_ms <= 0) {
    sp.status = "no points";
    sp.note = "your code could not be timed" + (r.timing_note.empty() ? std::string() : ": " + r.timing_note);
  } else {
    speed_points(r, rubric, sp);
    s.total += sp.points;
  }
}

}  // namespace

Score score(const StudentResult& r, const Rubric& rubric) {
  Score s;
  s.correct = score_checks(r, rubric, s) && r.verdict == kGraded;
  score_speed(r, rubric, s);
  s.total = std::round(s.total * 100) / 100;
  s.maximum = std::round(s.maximum * 100) / 100;
  return s;
}

}  // namespace grading
