// A lab's call as both sides must agree on it: the lab's function, and the buffers (name, element
// type) and scalars it takes, in its order. Each lab says its own once, in
// harness/lab_specs/labN/call.h; the checker builds every request from it (checker/calls/lab_call.h)
// and the runner unpacks every request by it (runner/lab_entry.h), so the two cannot disagree on
// an order, a type or a name.
#pragma once
#include <cstddef>
#include <span>
#include <type_traits>

#include "protocol.h"

namespace cudalab::wire {

struct BufferParam {
  const char* name;  // how reports name it: "d_sum", "the input array"
  ElemType type;
};

struct LabSignature {
  int lab;
  const char* function;  // "lab3::multilevel_sum"
  std::span<const BufferParam> buffers;  // in the function's order
  std::span<const char* const> scalars;  // their names, in the function's order
};

// The element type a C++ pointer type reads: float* -> F32, const unsigned char* -> U8, ...
template <class T>
constexpr ElemType elem_type_of() {
  using U = std::remove_cv_t<T>;
  static_assert(std::is_same_v<U, float> || std::is_same_v<U, unsigned> || std::is_same_v<U, int> ||
                    std::is_same_v<U, unsigned char>,
                "a lab's buffers hold float, unsigned, int or unsigned char");
  if constexpr (std::is_same_v<U, float>)
    return ElemType::F32;
  else if constexpr (std::is_same_v<U, unsigned>)
    return ElemType::U32;
  else if constexpr (std::is_same_v<U, int>)
    return ElemType::I32;
  else
    return ElemType::U8;
}

}  // namespace cudalab::wire
