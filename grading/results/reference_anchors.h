// Speed points that the GPU's drift cannot move: the reference solution is timed again every few
// students ("anchors"), through the same path as theirs, and each student's kernel is compared
// with the anchors just before and after it in the GPU's queue. A resumed run, a Slurm shard on
// another node or a second grading times its own anchors, so the same kernel gets the same
// ratio wherever it is graded; the anchors' spread is the run's own measure of timing noise.
//
// Each student's run times the student's kernel alone (the checker's --no-baselines); each anchor
// times the reference and the harness's naive kernel together (the speed scale's two ends), so
// a student's run no longer pays for a baseline runner of its own.
//
// Pure bookkeeping, no processes: the grader's timing queue (grader/timing_queue.cpp) runs the
// jobs in order() and reports each end here; the caller locks.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace grading {

struct AnchorTimes {
  double reference_ms = 0;
  std::optional<double> naive_ms;  // the naive kernel in the same run (absent where none was timed)
};

// One GPU's timing queue: anchor, `per_anchor` students, anchor, ..., anchor; with per_anchor 0,
// the students alone (no reference to anchor to), each whole once timed.
class AnchoredQueue {
 public:
  struct Job {
    bool anchor = false;
    size_t index = 0;  // the anchor's number, or the student's place in the list given
  };

  AnchoredQueue(size_t students, size_t per_anchor);
  const std::vector<Job>& order() const { return jobs_; }

  // The end of anchor `a` (its times, or none when it could not be timed) or of student `s`.
  // Each returns the students now whole: timed, with both of their anchors ended.
  std::vector<size_t> anchor_done(size_t a, std::optional<AnchorTimes> times);
  std::vector<size_t> student_done(size_t s);

  // Student s's anchors, once whole: the mean of the two around it, or the one of them that was
  // timed; none when neither was (the grader's trouble: the student is graded again next run).
  std::optional<AnchorTimes> times_for(size_t s) const;
  // How far apart student s's two anchors timed the reference (larger / smaller - 1); none unless
  // both were timed.
  std::optional<double> noise_for(size_t s) const;

  // The reference's times over every anchor timed so far: count, least, most.
  size_t anchors_timed() const;
  double least_reference_ms() const;
  double most_reference_ms() const;
  // most / least - 1: how far the reference moved against itself in this run.
  double reference_spread() const;

 private:
  size_t per_anchor_;
  std::vector<Job> jobs_;
  std::vector<bool> anchor_ended_, student_ended_, student_told_;
  std::vector<std::optional<AnchorTimes>> anchors_;
  size_t before(size_t s) const { return s / per_anchor_; }  // the anchor before student s; after: + 1
  bool anchored() const { return per_anchor_ > 0; }
  std::vector<size_t> newly_whole(size_t anchor);
  bool whole(size_t s) const;
};

// "the reference, timed 29 times in this run on this GPU, 0.0907-0.0912 ms (0.55% apart)".
std::string describe_anchors(const AnchoredQueue& q);

}  // namespace grading
