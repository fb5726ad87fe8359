// Points: a StudentResult scored with a Rubric.
#pragma once
#include <string>
#include <vector>

#include "result.h"
#include "rubric.h"

namespace grading {

struct CheckScore {
  std::string id, title, status;
  double points = 0, max_points = 0;
  bool counted = true;  // false: not graded on this backend (too large for the CPU), not in the maximum
  bool hidden = false;
};

struct SpeedScore {
  std::string status;  // "graded", "not graded", "no points"
  std::string note;  // why, for the feedback
  double points = 0, max_points = 0;
  bool counted = false;  // in the maximum
  double ratio = 0;  // student / reference time, when graded
  // Against the harness's naive kernel, each timed in its own run (0 when not known):
  // how many times faster than it the student's kernel and the reference are.
  double speedup = 0, reference_speedup = 0;
  std::string rule;  // how the points were computed, in one sentence
};

struct Score {
  double total = 0, maximum = 0;
  std::vector<CheckScore> checks;
  SpeedScore speed;
  bool correct = false;  // every counted check passed
};

Score score(const StudentResult& r, const Rubric& rubric);

// "12.5" or "12": points as people write them.
std::string format_points(double p);

}  // namespace grading
