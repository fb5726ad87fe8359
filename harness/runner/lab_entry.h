// The lab's entry point as the kernel runner sees it. Each harness/labs/labN/runner_entry.cpp
// (linked into lab N's runner, beside the lab file) unpacks a call's buffers and scalars
// into the host function that the lab's contract (harness/include/cudalab/labN.h) declares.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "wire/protocol.h"

namespace cudalab::run {

struct EntryArgs {
  std::vector<void*> buffers;  // device pointers, in the request's order
  const wire::CallRequest* request = nullptr;
  int64_t scalar(size_t i) const;
  template <class T>
  T* buffer(size_t i, wire::ElemType expected) const;  // checks the count and the type
};

// A request that does not match the lab's entry point (the checker's bug, not the student's).
struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int entry_lab_number();                   // defined by labN_entry.cpp
const char* entry_function_name();        // "lab3::multilevel_sum"
void call_lab_entry(const EntryArgs& a);  // defined by labN_entry.cpp

template <class T>
T* EntryArgs::buffer(size_t i, wire::ElemType expected) const {
  if (i >= buffers.size() || request->buffers[i].type != expected)
    throw BadRequest("buffer " + std::to_string(i) + " is missing or has the wrong type");
  return static_cast<T*>(buffers[i]);
}

inline int64_t EntryArgs::scalar(size_t i) const {
  if (i >= request->scalars.size()) throw BadRequest("scalar " + std::to_string(i) + " is missing");
  return request->scalars[i];
}

}  // namespace cudalab::run
