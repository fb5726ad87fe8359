// Grading one student, in two stages so that builds (one per core) and runs (one at a time
// per GPU) can be scheduled apart: prepare_and_build, then run_and_finish. With the emulator's
// part later (EmulatorStep::Later), emulate runs it apart and merge_emulator_verdicts takes it in.
// Each stage is a short sequence (grade_student.cpp); its steps are in the files named for them:
// build_submission.h, emulator_run.h, checker_run.h, run_report.h, student_jail.h.
#pragma once
#include <string>

#include "discover.h"
#include "grading_context.h"

namespace grading {

// When a student's CPU build and emulator run happen: right after the GPU build, on the same
// thread (Inline), or later on a thread of their own (Later: emulate()), so that the builds of
// the whole class finish first and the emulator's CPU work overlaps the GPU's timing instead.
enum class EmulatorStep { Inline, Later };

Built prepare_and_build(const GradingContext& ctx, const Submission& s, EmulatorStep emulator = EmulatorStep::Inline);
// The emulator's part of a student built with EmulatorStep::Later: the CPU build, then the
// emulator run (into built.emulator_run, which says why when there is none). No GPU.
void emulate(const GradingContext& ctx, Built& built);
// The emulator-judged checks of `r` take built.emulator_run's verdicts (or keep the checker's,
// with a note, when it has none), in the words the student reads.
void merge_emulator_verdicts(const GradingContext& ctx, const Built& built, StudentResult& r);
// Runs the checker on a built submission: every check, and the timing too when `with_timing`
// (else --no-timing: the grader times correct submissions afterwards, one at a time).
// Built with EmulatorStep::Later, the emulator-judged checks keep the checker's verdicts and
// `emulator_pending` (when given) says whether they still await merge_emulator_verdicts (a run
// that ended in trouble takes none, as with Inline).
StudentResult run_and_finish(const GradingContext& ctx, const Built& built, const std::string& gpu, bool with_timing,
                             bool* emulator_pending = nullptr);

}  // namespace grading
