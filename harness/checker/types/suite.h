// What a lab's check suite is: a table of cases (data) and one function that runs a case.
// Each harness/lab_specs/labN/checks.cpp defines lab_suite(); run_checks.cpp does the rest.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/types/timing_report.h"

namespace cudalab {

class RunnerSession;  // checker/calls/runner_session.h
struct CallContext;  // checker/calls/lab_call.h
struct LabSource;  // checker/calls/runner_words.h

// A problem size: {n}, {rows, cols} or {M, N, K}.
struct Shape {
  std::vector<size_t> dims;
  std::string text() const;  // "1,048,577" or "1000 x 1000" or "M 1000, N 1000, K 1000"
  size_t elements() const;  // product of dims
};

enum class Status { Pass, Fail, Error, NotRun, Skipped };
const char* status_name(Status s);  // "pass", "fail", "error", "not_run", "skipped"

// Why a check did not pass, as data (the report's "cause"): a program acts on this, never on
// the message, which is for people and may be reworded at any time (docs/architecture.md).
enum class Cause {
  None,  // it passed
  WrongValues,  // outputs written, some wrong
  UnwrittenOutput,  // every wrong output element still holds the harness's poison
  WrotePastEnd,  // the guard words after an output changed
  Race,  // the verdict changed with the order of threads and blocks (CPU backend)
  BarrierDivergence,  // some threads of a block skipped a __syncthreads() the others reached
  Crash,  // the runner died (a signal, or it could not start)
  TimeLimit,  // the call did not finish within --check-timeout
  RunnerLost,  // the runner broke off the protocol (garbage, or it closed the socket)
  ForbiddenCall,  // the lab's code made a system call the runner's filter refuses (it died of SIGSYS)
  CudaError,  // a CUDA error the lab's code met; the context survived
  ContextLost,  // a CUDA error that broke the context: the next check gets a fresh runner
  PastArrayEnd,  // a thread indexed or read past an array's end (the CPU backend's race build sees every index)
  Exception,  // the lab's code threw
  NoKernel,  // no kernel ran, or the work was done on the host
  RequestRefused,  // the runner or the checker could not set the call up
  OutOfMemory,  // the runner could not allocate the call's buffers
  CheckerError,  // the checker's own trouble during the check
  TooLarge,  // skipped: too large for the CPU backend
  LeftOut,  // skipped: fail fast, the smaller checks fail
  NeedsEmulator,  // skipped: only the CPU backend's emulator can judge it
  NotJudged,  // not run: nothing that passed for it to judge
  NoRunner,  // not run: no usable GPU, or no runner
};
const char* cause_name(Cause c);  // "none", "wrong_values", "unwritten_output", ...

struct Mismatch {
  size_t index = 0;  // flat index into the output
  std::string where;  // "[1023]" or "(row 31, col 999)"
  double expected = 0;
  double got = 0;
  std::string owner;  // "block 0, thread 1023" (empty when unknown)
  bool counts = false;  // unsigned counts: shown as integers ("4,294,967,295"), not as floats
};

struct CheckResult {
  Status status = Status::NotRun;
  Cause cause = Cause::None;  // why it did not pass (None when it did)
  std::string message;  // one line a student can act on
  std::vector<std::string> notes;  // further lines: patterns, hints
  // CHECK=race / CHECK=asan on the CPU backend: the sanitizer's findings during this check,
  // digested (sanitizer_digest.h). Shown whatever the verdict (a race can give a right
  // answer by luck), and never part of it.
  std::vector<std::string> sanitizer;
  // What the kernel runner said in its own words during this check (an exception's message, the
  // CPU backend's account of a fault): printable and cut, never part of a verdict, and kept only
  // when no check of the run is hidden (checker/calls/runner_words.h).
  std::vector<std::string> runner_words;
  double max_error = 0;
  double tolerance = 0;
  std::vector<Mismatch> mismatches;  // the first few wrong elements
  std::string launches;  // what the lab's code launched ("2 launches: k<<<4, 256>>>, ...")
  double seconds = 0;  // wall time the check took, inputs and reference included
};

struct CheckCase {
  std::string id;  // stable, for --only and for grading rubrics
  std::string title;  // what the case is for, e.g. "blockDim + 1: one element in a second block"
  Shape shape;
  bool large = false;  // too large for the CPU backend's time budget
  // Its verdict is made from what the CPU backend's emulator saw the threads do (every barrier
  // every thread reached): a GPU cannot judge it, so a GPU grader takes it from an emulator
  // run of the same file (the report's "judged_by": "emulator").
  bool judged_by_emulator = false;
};

// A check as run: its case and its result.
struct CheckOutcome {
  CheckCase check;
  CheckResult result;
};

struct TimingRequest {
  RunnerSession& runner;  // the run's kernel runner: the student's, then the baselines'
  uint64_t seed = 0;
  std::optional<Shape> shape;  // --size overrides the lab's timed size
  // The grader's timing run (--timing-only): only the rows speed points use, the student's and
  // the harness's naive kernel's. The CPU, vendor and end-to-end rows cost seconds per student
  // and change no grade.
  bool graded_rows_only = false;
  // --no-baselines: the student's row alone (with the ceiling and the physical floor, which judge
  // it); every lab returns before its BaselineSession. The grader's anchor runs time the
  // reference solution with the harness's rows instead (grading/results/reference_anchors.h).
  bool student_row_only = false;
};

struct LabSuite {
  int number = 0;
  std::string title;  // "multi-level sum"
  std::string size_syntax;  // how --size is written: "N", "ROWSxCOLS", "MxNxK"
  size_t size_dims = 1;  // how many numbers --size takes
  std::vector<CheckCase> cases;
  // A case's check: its calls run in the context's runner and leave their record there.
  std::function<CheckResult(CallContext& calls, const CheckCase&, uint64_t seed)> run;
  // Returns "" when the shape can be run, otherwise why not and what to do instead.
  std::function<std::string(const Shape&)> reject_shape;
  // A `large` case the CPU backend does not run: the suite's verdict on it by other means (the
  // lab file, `source`, read for the bug the case is there for), or nothing (the case is skipped).
  std::function<std::optional<CheckResult>(const LabSource& source, const CheckCase&)> judge_unemulated = nullptr;
};

const LabSuite& lab_suite();  // defined by lab_specs/labN/checks.cpp
TimingReport lab_timing(const TimingRequest&);  // defined by lab_specs/labN/timing.cpp (GPU build)

}  // namespace cudalab
