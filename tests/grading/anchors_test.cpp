// The grader's reference anchors (results/reference_anchors.h): the queue's order, when a student
// is whole, and the times each student is compared with.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "results/reference_anchors.h"

using namespace grading;

namespace {

std::string order_of(const AnchoredQueue& q) {
  std::string s;
  for (const auto& j : q.order()) s += (j.anchor ? "A" : "s") + std::to_string(j.index) + " ";
  return s;
}

}  // namespace

TEST_CASE("an anchor before every few students and after the last") {
  CHECK(order_of(AnchoredQueue(5, 2)) == "A0 s0 s1 A1 s2 s3 A2 s4 A3 ");
  CHECK(order_of(AnchoredQueue(4, 2)) == "A0 s0 s1 A1 s2 s3 A2 ");
  CHECK(order_of(AnchoredQueue(1, 8)) == "A0 s0 A1 ");
  CHECK(order_of(AnchoredQueue(0, 8)).empty());
  CHECK(order_of(AnchoredQueue(3, 0)) == "s0 s1 s2 ");  // no reference to anchor to
}

TEST_CASE("without anchors each student is whole once timed, with no anchor times") {
  AnchoredQueue q(2, 0);
  CHECK(q.student_done(1) == std::vector<size_t>{1});
  CHECK(q.student_done(0) == std::vector<size_t>{0});
  CHECK_FALSE(q.times_for(0));
  CHECK_FALSE(q.noise_for(0));
  CHECK(q.anchors_timed() == 0);
}

TEST_CASE("a student is whole once it and both of its anchors have ended, in any order") {
  AnchoredQueue q(3, 2);  // A0 s0 s1 A1 s2 A2
  CHECK(q.student_done(1).empty());  // its anchors are still to come (two runs are in flight)
  CHECK(q.anchor_done(0, AnchorTimes{0.100, 1.0}).empty());
  CHECK(q.anchor_done(1, AnchorTimes{0.102, 1.1}) == std::vector<size_t>{1});
  CHECK(q.student_done(0) == std::vector<size_t>{0});
  CHECK(q.student_done(2).empty());
  CHECK(q.anchor_done(2, std::nullopt) == std::vector<size_t>{2});

  const auto t0 = q.times_for(0);
  REQUIRE(t0);
  CHECK(t0->reference_ms == doctest::Approx(0.101));
  CHECK(*t0->naive_ms == doctest::Approx(1.05));
  CHECK(*q.noise_for(0) == doctest::Approx(0.02));
  // Student 2's later anchor was lost: the earlier one alone, and no noise to state.
  const auto t2 = q.times_for(2);
  REQUIRE(t2);
  CHECK(t2->reference_ms == doctest::Approx(0.102));
  CHECK_FALSE(q.noise_for(2));
  CHECK(q.anchors_timed() == 2);
  CHECK(q.reference_spread() == doctest::Approx(0.02));
}

TEST_CASE("a student whose anchors both failed has no times: the grader's trouble, graded again next run") {
  AnchoredQueue q(2, 1);  // A0 s0 A1 s1 A2
  q.anchor_done(0, AnchorTimes{0.1, std::nullopt});
  q.anchor_done(1, std::nullopt);
  q.anchor_done(2, std::nullopt);
  q.student_done(0);
  CHECK(q.student_done(1) == std::vector<size_t>{1});
  CHECK(q.times_for(0));
  CHECK_FALSE(q.times_for(1));
  CHECK_FALSE(q.times_for(0)->naive_ms);
}

TEST_CASE("each student is told whole once") {
  AnchoredQueue q(2, 8);  // A0 s0 s1 A1
  q.student_done(0);
  q.student_done(1);
  q.anchor_done(0, AnchorTimes{0.1, 1.0});
  const auto whole = q.anchor_done(1, AnchorTimes{0.1, 1.0});
  CHECK(whole == std::vector<size_t>{0, 1});
  CHECK_THROWS_AS(q.anchor_done(2, std::nullopt), std::out_of_range);
}
