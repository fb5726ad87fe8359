// A call of the lab's entry point, made from the checker and carried out by the kernel
// runner (harness/wire/protocol.h). A suite describes the buffers, the runner makes them,
// calls the lab's host function, and hands back every output and every guard; the checker
// judges them. The lab's call (harness/lab_specs/labN/call.h) gives each buffer's name and type and
// the order: a buffer or scalar added out of its place is the checker's own bug, refused at once.
//
//   using namespace lab3_call;
//   LabCall call(kCall);
//   call.random_input(kIn, n, sum_fill(seed));
//   size_t scratch = call.output(kScratch, scratch_n, /*return_data=*/false);
//   size_t total   = call.output(kSum, 1);
//   call.scalar(kN, int64_t(n));
//   LabCallResult res = call.run(context);   // throws LabCallFailure when it could not finish
//   float got = res.floats(total)[0];
//   add_guards_and_notes(r, call, res, {{total}, {scratch}, {kIn}});  // checker/judging/guard_verdicts.h
//
// The runner unpacks the buffers and scalars by the same call.h (lab_specs/labN/runner_entry.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "checker/types/suite.h"
#include "runner_session.h"
#include "wire/fill.h"
#include "wire/lab_signature.h"
#include "wire/protocol.h"

namespace cudalab {

// What one call left for the report besides its outputs (in its LabCallResult or its
// LabCallFailure), and what all of a check's calls left (CallContext::record).
struct CallRecord {
  std::vector<wire::Launch> launches;  // what the launch record saw (a refused launch too)
  uint64_t launches_total = 0;
  // The runner's own words (runner_words.h): printable and cut; shown only where the run allows.
  std::vector<std::string> runner_words;
  // The runner's notes as received: PROFILE=1 reads its counts from them as numbers
  // (checker/profile/profile_notes.h); they are never shown.
  std::vector<std::string> runner_notes;
  // A later call's record after this one: its launches replace these (the report shows the last
  // call's), its words and notes follow.
  void add(const CallRecord& later);
};

// Why a call produced no outputs to judge. The message is a sentence for the report, in the
// checker's own words (runner_words.h); what the runner said travels in its record, which is
// empty when no reply came (a crash, a hang).
struct LabCallFailure : std::runtime_error, CallRecord {
  enum class Kind {
    CudaError,
    ContextLost,
    Exception,
    Crashed,
    TimedOut,
    Garbage,
    NoKernel,
    Refused,
    OutOfMemory,
    Forbidden
  };
  Kind kind;
  // What the failure was, where the kind alone does not say it (a thread past an array's end
  // is a lost context by its kind); None: cause_of(kind).
  Cause cause = Cause::None;
  std::vector<std::string> notes;
  LabCallFailure(Kind k, const std::string& message, std::vector<std::string> n = {}, CallRecord record = {})
      : std::runtime_error(message), CallRecord(std::move(record)), kind(k), notes(std::move(n)) {}
};

// The report's cause for a failed call (suite.h): what the kind of failure means as data.
Cause cause_of(LabCallFailure::Kind kind);

struct GuardState {
  size_t overwritten = 0;  // guard words that changed
  size_t first = 0;  // index, counted from the buffer's start, of the first changed one
};

// An element of an output drawn after a timed call ran (LabCall::sampled_output): where it is
// in the output, and what the call left there.
struct OutputSample {
  uint64_t index = 0;
  float value = 0;
};

// A call's outputs, with its record (launches, the runner's words).
struct LabCallResult : CallRecord {
  std::vector<std::vector<uint8_t>> data;  // per buffer: its elements (empty when not returned)
  // Per buffer: the elements drawn from a sampled output in a timed batch, the last element of the
  // output first (empty for other buffers, and in a check, which has all of data).
  std::vector<std::vector<OutputSample>> samples;
  std::vector<GuardState> guards;  // per buffer
  std::vector<std::string> notes;  // what the runner noticed (the CPU backend's emulator), in the checker's words

  std::vector<float> floats(size_t buffer) const;
  std::vector<uint32_t> u32s(size_t buffer) const;
  std::vector<int32_t> i32s(size_t buffer) const;
};

// What a check's calls need from the run, and what they leave for its report: the run's kernel
// runner (with the lab file the checker read), passed down to the suite, and the record of the
// calls made so far. Made afresh for each check (run_checks.cpp), so one check's calls never
// reach another's report.
struct CallContext {
  RunnerSession& runner;
  CallRecord record;
};

class LabCall {
 public:
  explicit LabCall(const wire::LabSignature& signature) : signature_(signature) {}

  // The lab's buffers, each at its place in the call (`param`: labN_call::Buffer); the name and
  // the element type are the call's. Each returns the buffer's index for the result.
  // An input the runner makes from the seed (see wire::Fill); the checker makes the same
  // values with make_input() below for its reference.
  size_t random_input(size_t param, size_t count, const wire::Fill& fill);
  // An input the checker writes (values that are not random: sorted, all equal, ...).
  template <class T>
  size_t data_input(size_t param, const std::vector<T>& values) {
    return data_input(param, wire::elem_type_of<T>(), values.data(), values.size());
  }
  // An output, poisoned before the call. return_data = false brings back only its guards.
  size_t output(size_t param, size_t count, bool return_data = true);
  // An output that starts with the checker's bytes instead of the poison (to ask what the code
  // does with a value it finds there).
  size_t output_from(size_t param, const void* bytes, size_t count);
  // A float output that a timed batch checks on `samples` elements drawn after the batch ran (the
  // last element always among them): when it is larger than kWholeOutputBytes only those come
  // back, gathered by the runner, else all of it; either way LabCallResult::samples holds them.
  // A check (run()) brings it back whole, as output() does.
  size_t sampled_output(size_t param, size_t count, uint32_t samples);
  uint32_t samples_of(size_t buffer) const { return samples_.at(buffer); }
  // The lab's scalars, each at its place (`param`: labN_call::Scalar).
  void scalar(size_t param, int64_t v);
  // A scalar past the lab's own: the baseline runner's choice of kernel (baseline_timing.h).
  void extra_scalar(int64_t v) { request_.scalars.push_back(v); }

  // Runs the call in the context's kernel runner (starting one if needed) and adds what it left
  // to the context's record. A call in which no kernel was launched, or that brought more GPU
  // data to the host than a few bytes or an eighth of its input, fails with Kind::NoKernel.
  LabCallResult run(CallContext& context);

  std::string function() const { return signature_.function; }
  int lab() const { return signature_.lab; }
  wire::CallRequest& request() { return request_; }
  const wire::CallRequest& request() const { return request_; }
  const std::vector<std::vector<uint8_t>>& data_for_timing() const { return data_; }

 private:
  size_t data_input(size_t param, wire::ElemType type, const void* bytes, size_t count);
  // The buffer at `param` of the lab's call, which must be the next place, with its name and type.
  wire::BufferSpec next_buffer(size_t param, uint64_t count) const;
  size_t add(wire::BufferSpec spec, const void* data);
  wire::LabSignature signature_;  // its spans name static tables (lab_specs/labN/call.h)
  wire::CallRequest request_;
  std::vector<std::vector<uint8_t>> data_;  // Data inputs, by buffer (empty for others)
  std::vector<uint32_t> samples_;  // by buffer: elements a timed batch draws (0: not sampled)
};

// A sampled output up to this size comes back whole from a timed call (a few of them cost less
// than the gather's launch); above, only its drawn elements do.
constexpr uint64_t kWholeOutputBytes = uint64_t(1) << 20;

// call.run(context), and when it fails, the lab's own words for the launch record it failed with
// (explain returns "" when it has none): they take the place of the general account of a refused
// launch ("you asked for a grid of ..."), which the lab can say more exactly from its shapes.
LabCallResult run_explained(CallContext& context, LabCall& call,
                            const std::function<std::string(const std::vector<wire::Launch>&)>& explain);

// The values a Random fill gives, as the runner makes them (wire::fill_host).
template <class T>
std::vector<T> make_input(size_t count, const wire::Fill& fill) {
  std::vector<T> v(count);
  wire::fill_host(v.data(), fill, count);
  return v;
}

}  // namespace cudalab
