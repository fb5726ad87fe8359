// The names of a check's causes in the JSON report: the schema's vocabulary (docs/architecture.md).
#include "suite.h"

namespace cudalab {

const char* cause_name(Cause c) {
  switch (c) {
    case Cause::None: return "none";
    case Cause::WrongValues: return "wrong_values";
    case Cause::UnwrittenOutput: return "unwritten_output";
    case Cause::WrotePastEnd: return "wrote_past_end";
    case Cause::Race: return "race";
    case Cause::BarrierDivergence: return "barrier_divergence";
    case Cause::Crash: return "crash";
    case Cause::TimeLimit: return "time_limit";
    case Cause::RunnerLost: return "runner_lost";
    case Cause::ForbiddenCall: return "forbidden_call";
    case Cause::CudaError: return "cuda_error";
    case Cause::ContextLost: return "context_lost";
    case Cause::PastArrayEnd: return "past_array_end";
    case Cause::Exception: return "exception";
    case Cause::NoKernel: return "no_kernel";
    case Cause::RequestRefused: return "request_refused";
    case Cause::OutOfMemory: return "out_of_memory";
    case Cause::CheckerError: return "checker_error";
    case Cause::TooLarge: return "too_large";
    case Cause::LeftOut: return "left_out";
    case Cause::NeedsEmulator: return "needs_emulator";
    case Cause::NotJudged: return "not_judged";
    case Cause::NoRunner: return "no_runner";
  }
  return "?";
}

}  // namespace cudalab
