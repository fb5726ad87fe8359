// The end of every check's judgement: the guard words after each buffer (an overrun), then what
// the runner noticed (the CPU backend's notes, in the checker's words).
#pragma once
#include <cstddef>
#include <initializer_list>
#include <string>

#include "checker/calls/lab_call.h"
#include "checker/types/suite.h"

namespace cudalab {

// A buffer whose guard words a check judges, named in the report by `described_as` where the
// buffer's own name would not say enough ("d_scratch (scratch_elements(n) = 1,025 floats)").
struct Guarded {
  size_t buffer;
  std::string described_as = "";
};
// The end of every check's judgement: "wrote past the end of <name>" for each buffer in `order`
// whose guards changed (the outputs first: an overrun of an output is the likelier bug), then
// what the runner noticed (the CPU backend's notes).
void add_guards_and_notes(CheckResult& r, const LabCall& call, const LabCallResult& res,
                          std::initializer_list<Guarded> order);

}  // namespace cudalab
