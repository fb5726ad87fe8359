// One timing run of a built submission (the checker's --timing-only), its times into the result;
// the order of the class's timing runs is the timing queue's (timing_queue.h).
#pragma once
#include <filesystem>
#include <string>

#include "grading_context.h"

namespace grading {

// The timing alone (the checker's --timing-only), for a submission whose checks all passed:
// fills r's timing fields. No check may share the GPU meanwhile; timing runs may overlap when
// they share `gate` (the checker's --gpu-gate: each measures only while holding its lock).
// `run` says which: a student's kernel alone (Student: --no-baselines, its scale's ends come from the
// anchors), the reference with the harness's naive kernel (Anchor: results/reference_anchors.h),
// or the student's with the naive kernel in its own run (Alone: where no anchors are timed).
// `folder` names the run's folder under the student's: anchors on several GPUs run at once.
enum class TimingRun { Student, Anchor, Alone };
void time_student(const GradingContext& ctx, const Built& built, StudentResult& r, const std::string& gpu,
                  const std::filesystem::path& gate = {}, TimingRun run = TimingRun::Alone,
                  const std::string& folder = "timing");

}  // namespace grading
