// The timing queue: once every check of the class is done, each correct submission is timed on the
// GPU that ran its checks, with nothing but timing on that GPU.
//
// Contract of time_correct_students:
// - per GPU, one queue in a fixed order (results/reference_anchors.h): an anchor run (the reference
//   with the naive kernel) before every kStudentsPerAnchor students and after the last, and each
//   student's kernel timed alone between them; with no reference to anchor to (no solution
//   shipped), each student with the naive kernel in its own run;
// - two runs per GPU in flight (kInFlightPerGpu), taking turns on the GPU's gate
//   (<work>/gpuN.gate, the checker's --gpu-gate): one measures while the next starts its
//   processes, its jail and its CUDA context;
// - a run refused by its clock bound or ended in error is timed again, up to three tries;
// - each student goes to `meeting` exactly once: gpu_done, once timed and both of their anchors
//   ended (the scale's ends from those anchors), or abandon (not saved: the next run grades them
//   again) when their timing run broke or neither anchor timed the reference;
// - it returns when every GPU's queue is done, having said each GPU's anchors on stderr.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "emulator_meeting.h"
#include "grading_context.h"

namespace grading {

// A correct submission waiting for its timing run, with what its result still awaits.
struct ToTime {
  Built built;
  StudentResult result;
  bool emulator_pending = false;
  bool failed = false;  // its timing run broke (the grader's trouble): not saved
};

// The timing runs, once every check is done: nothing but timing on a GPU. Two runs per GPU are
// in flight, taking turns on the GPU's gate (the checker's --gpu-gate): one measures while the
// next starts its processes, its jail and its CUDA context, which need no GPU to themselves.
// `to_time[g]`: the students whose checks ran on run_slots[g]; `reference`: the solution's build
// for the anchor runs (none: no anchors).
void time_correct_students(const GradingContext& ctx, const std::vector<std::string>& run_slots,
                           const std::optional<Built>& reference, std::vector<std::vector<ToTime>>& to_time,
                           EmulatorMeeting& meeting);

}  // namespace grading
