#include "reference_anchors.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace grading {

AnchoredQueue::AnchoredQueue(size_t students, size_t per_anchor) : per_anchor_(per_anchor) {
  const size_t anchors = students == 0 || !anchored() ? 0 : (students + per_anchor_ - 1) / per_anchor_ + 1;
  for (size_t s = 0; s < students; ++s) {
    if (anchored() && s % per_anchor_ == 0) jobs_.push_back({true, s / per_anchor_});
    jobs_.push_back({false, s});
  }
  if (anchors > 0) jobs_.push_back({true, anchors - 1});
  anchor_ended_.assign(anchors, false);
  anchors_.assign(anchors, std::nullopt);
  student_ended_.assign(students, false);
  student_told_.assign(students, false);
}

bool AnchoredQueue::whole(size_t s) const {
  if (!anchored()) return student_ended_[s];
  return student_ended_[s] && anchor_ended_[before(s)] && anchor_ended_[before(s) + 1];
}

std::vector<size_t> AnchoredQueue::newly_whole(size_t anchor) {
  std::vector<size_t> out;
  // The students on either side of this anchor: those after the one before it, those before the next.
  const size_t first = anchor == 0 ? 0 : (anchor - 1) * per_anchor_;
  const size_t last = std::min(student_ended_.size(), (anchor + 1) * per_anchor_);
  for (size_t s = first; s < last; ++s)
    if (!student_told_[s] && whole(s)) {
      student_told_[s] = true;
      out.push_back(s);
    }
  return out;
}

std::vector<size_t> AnchoredQueue::anchor_done(size_t a, std::optional<AnchorTimes> times) {
  if (a >= anchors_.size()) throw std::out_of_range("no anchor " + std::to_string(a));
  anchor_ended_[a] = true;
  anchors_[a] = times;
  return newly_whole(a);
}

std::vector<size_t> AnchoredQueue::student_done(size_t s) {
  if (s >= student_ended_.size()) throw std::out_of_range("no student " + std::to_string(s));
  student_ended_[s] = true;
  if (student_told_[s] || !whole(s)) return {};
  student_told_[s] = true;
  return {s};
}

std::optional<AnchorTimes> AnchoredQueue::times_for(size_t s) const {
  if (!anchored()) return std::nullopt;
  const std::optional<AnchorTimes>& a = anchors_.at(before(s));
  const std::optional<AnchorTimes>& b = anchors_.at(before(s) + 1);
  if (!a || !b) return a ? a : b;
  AnchorTimes mean;
  mean.reference_ms = (a->reference_ms + b->reference_ms) / 2;
  if (a->naive_ms && b->naive_ms)
    mean.naive_ms = (*a->naive_ms + *b->naive_ms) / 2;
  else
    mean.naive_ms = a->naive_ms ? a->naive_ms : b->naive_ms;
  return mean;
}

std::optional<double> AnchoredQueue::noise_for(size_t s) const {
  if (!anchored()) return std::nullopt;
  const std::optional<AnchorTimes>& a = anchors_.at(before(s));
  const std::optional<AnchorTimes>& b = anchors_.at(before(s) + 1);
  if (!a || !b || a->reference_ms <= 0 || b->reference_ms <= 0) return std::nullopt;
  return std::max(a->reference_ms, b->reference_ms) / std::min(a->reference_ms, b->reference_ms) - 1;
}

size_t AnchoredQueue::anchors_timed() const {
  return size_t(std::count_if(anchors_.begin(), anchors_.end(), [](const auto& a) { return a.has_value(); }));
}

double AnchoredQueue::least_reference_ms() const {
  double least = 0;
  for (const auto& a : anchors_)
    if (a && (least == 0 || a->reference_ms < least)) least = a->reference_ms;
  return least;
}

double AnchoredQueue::most_reference_ms() const {
  double most = 0;
  for (const auto& a : anchors_)
    if (a) most = std::max(most, a->reference_ms);
  return most;
}

double AnchoredQueue::reference_spread() const {
  const double least = least_reference_ms();
  return least > 0 ? most_reference_ms() / least - 1 : 0;
}

std::string describe_anchors(const AnchoredQueue& q) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "the reference, timed %zu times in this run on this GPU: %.4f-%.4f ms (%.2f%% apart)",
                q.anchors_timed(), q.least_reference_ms(), q.most_reference_ms(), 100 * q.reference_spread());
  return buf;
}

}  // namespace grading
