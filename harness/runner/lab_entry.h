// The lab's entry point as the kernel runner sees it. Each harness/lab_specs/labN/runner_entry.cpp
// (linked into lab N's runner, beside the lab file) unpacks a call's buffers and scalars into the
// host function that the lab's contract (harness/include/cudalab/labN.h) declares, by the lab's
// call (harness/lab_specs/labN/call.h), the same one the checker builds its requests from.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "wire/lab_signature.h"
#include "wire/protocol.h"

namespace cudalab::run {

// A request that does not match the lab's entry point (the checker's bug, not the student's).
struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The checker's device memory for the call (DeviceInputs) could not be mapped: no lab code ran,
// and the checker sends the call again with its inputs as values (the driver's failure, not the student's).
struct InputsNotMapped : BadRequest {
  using BadRequest::BadRequest;
};

const wire::LabSignature& entry_signature();  // defined by lab_specs/labN/runner_entry.cpp: labN_call::kCall

struct EntryArgs {
  std::vector<void*> buffers;  // device pointers, in the request's order
  const wire::CallRequest* request = nullptr;
  // Buffer `param` of the lab's call, as T*: the call must hold T there, and so must the request.
  template <class T>
  T* buffer(size_t param) const;
  int64_t scalar(size_t param) const;
  bool has_scalar(size_t param) const { return param < request->scalars.size(); }
};

void call_lab_entry(const EntryArgs& a);  // defined by lab_specs/labN/runner_entry.cpp

template <class T>
T* EntryArgs::buffer(size_t param) const {
  const wire::LabSignature& call = entry_signature();
  const wire::ElemType type = wire::elem_type_of<T>();
  if (param >= call.buffers.size() || call.buffers[param].type != type)
    throw BadRequest(std::string(call.function) + " has no " + wire::elem_name(type) + " buffer at place " +
                     std::to_string(param));
  if (param >= buffers.size() || request->buffers[param].type != type)
    throw BadRequest("buffer " + std::to_string(param) + " is missing or has the wrong type");
  return static_cast<T*>(buffers[param]);
}

inline int64_t EntryArgs::scalar(size_t param) const {
  if (!has_scalar(param)) throw BadRequest("scalar " + std::to_string(param) + " is missing");
  return request->scalars[param];
}

}  // namespace cudalab::run
