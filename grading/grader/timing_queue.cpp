#include "timing_queue.h"

#include <atomic>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "timing_run.h"
#include "results/reference_anchors.h"

namespace grading {
namespace {

// A reference run before every kStudentsPerAnchor students and after the last (an eighth more
// timing): close enough that the GPU's drift between a student and its anchors is far below the
// points' step, few enough that the anchors cost less than the naive kernel's runs they replace.
constexpr size_t kStudentsPerAnchor = 8;

// One GPU's timing queue, run by kInFlightPerGpu threads in order: anchors (the reference with
// the naive kernel) and students (their kernel alone), or, with no reference to anchor to (no
// solution shipped), each student with the naive kernel in its own run.
class GpuTimingQueue {
 public:
  GpuTimingQueue(const GradingContext& ctx, const std::vector<std::string>& run_slots,
                 const std::optional<Built>& reference, size_t g, std::vector<ToTime>& students,
                 EmulatorMeeting& meeting)
      : ctx_(ctx),
        reference_(reference),
        g_(g),
        gpu_(run_slots[g]),
        gate_(ctx.work / ("gpu" + std::to_string(g) + ".gate")),
        students_(students),
        meeting_(meeting),
        anchored_(reference.has_value()),
        queue_(students.size(), anchored_ ? kStudentsPerAnchor : 0) {}

  // Takes jobs until none is left (called on each of the GPU's threads).
  void work() {
    for (size_t j; (j = next_++) < queue_.order().size();) {
      const AnchoredQueue::Job job = queue_.order()[j];
      if (job.anchor)
        time_anchor(job.index);
      else
        time_one_student(job.index);
    }
  }

  void describe() const {
    if (anchored_ && queue_.anchors_timed() > 0)
      std::cerr << "grader: GPU " << gpu_ << ": " << describe_anchors(queue_) << "\n";
  }

 private:
  // A timing run, again when its time was refused (its clock bound, timing_bound.h) or the run
  // ended in an error (the checker's own GPU work failing, a checker that left no report): a
  // host that was slow or short of memory for a moment (the grader's trouble) passes the next
  // try; a runner that lies, or whose code breaks the run, does so every time and keeps it.
  void time_with_retries(const Built& built, StudentResult& r, TimingRun kind, const std::string& folder) {
    constexpr int kTries = 3;
    for (int attempt = 1;; ++attempt) {
      time_student(ctx_, built, r, gpu_, gate_, kind, folder);
      const bool again = r.timing_status == "refused" || r.timing_status == "error";
      if (!again || attempt == kTries) return;
      std::cerr << "\ngrader: " << (kind == TimingRun::Anchor ? "the reference's anchor run" : r.student) << " on GPU "
                << gpu_ << ": timed again (" << r.timing_note << ")\n";
    }
  }

  void time_anchor(size_t a) {
    std::optional<AnchorTimes> times;
    StudentResult r = reference_->result;
    r.seed = 0x5EED0000ull + 7919 * a + g_;  // each anchor on inputs of its own, the same in every run
    try {
      time_with_retries(*reference_, r, TimingRun::Anchor, "anchor-" + std::to_string(g_));
      if (r.student_ms && *r.student_ms > 0)
        times = AnchorTimes{*r.student_ms, r.naive_ms};
      else
        std::cerr << "\ngrader: the reference's anchor run " << a << " on GPU " << gpu_
                  << " was not timed: " << r.timing_note << "\n";
    } catch (const std::exception& e) {
      std::cerr << "\ngrader: the reference's anchor run " << a << " on GPU " << gpu_ << " failed: " << e.what()
                << "\n";
    }
    std::vector<size_t> whole;
    {
      std::lock_guard<std::mutex> l(mutex_);
      whole = queue_.anchor_done(a, times);
    }
    for (size_t s : whole) finish(s);
  }

  void time_one_student(size_t s) {
    ToTime& t = students_[s];
    try {
      time_with_retries(t.built, t.result, anchored_ ? TimingRun::Student : TimingRun::Alone, "timing");
    } catch (const std::exception& e) {
      std::cerr << "\ngrader: could not time " << t.result.student << ": " << e.what() << "\n";
      t.failed = true;
    }
    std::vector<size_t> whole;
    {
      std::lock_guard<std::mutex> l(mutex_);
      whole = queue_.student_done(s);
    }
    for (size_t w : whole) finish(w);
  }

  // A student timed, with both anchors ended: the scale's ends from the anchors, then saved when
  // its emulator half is in too. A student whose anchors were both lost is the grader's trouble:
  // not saved, so the next run grades them again.
  void finish(size_t s) {
    ToTime& t = students_[s];
    if (t.failed) {
      meeting_.abandon(t.result.student);
      return;
    }
    if (anchored_ && t.result.student_ms) {
      std::optional<AnchorTimes> a;
      std::optional<double> noise;
      {
        std::lock_guard<std::mutex> l(mutex_);
        a = queue_.times_for(s);
        noise = queue_.noise_for(s);
      }
      if (!a) {
        std::cerr << "\ngrader: no anchor run around " << t.result.student
                  << " timed the reference; not saved (run again)\n";
        meeting_.abandon(t.result.student);
        return;
      }
      t.result.reference_ms = a->reference_ms;
      t.result.naive_ms = a->naive_ms;
      t.result.reference_naive_ms = a->naive_ms;
      t.result.reference_noise = noise;
    }
    meeting_.gpu_done(t.built, std::move(t.result), t.emulator_pending);
  }

  const GradingContext& ctx_;
  const std::optional<Built>& reference_;
  const size_t g_;
  const std::string gpu_;
  const fs::path gate_;
  std::vector<ToTime>& students_;
  EmulatorMeeting& meeting_;
  const bool anchored_;
  std::mutex mutex_;
  AnchoredQueue queue_;
  std::atomic<size_t> next_{0};
};

}  // namespace

void time_correct_students(const GradingContext& ctx, const std::vector<std::string>& run_slots,
                           const std::optional<Built>& reference, std::vector<std::vector<ToTime>>& to_time,
                           EmulatorMeeting& meeting) {
  constexpr unsigned kInFlightPerGpu = 2;
  std::vector<std::unique_ptr<GpuTimingQueue>> queues;
  for (size_t g = 0; g < run_slots.size(); ++g)
    queues.push_back(std::make_unique<GpuTimingQueue>(ctx, run_slots, reference, g, to_time[g], meeting));
  std::vector<std::thread> timers;
  for (auto& q : queues)
    for (unsigned k = 0; k < kInFlightPerGpu; ++k) timers.emplace_back([&q] { q->work(); });
  for (auto& t : timers) t.join();
  for (const auto& q : queues) q->describe();
}

}  // namespace grading
