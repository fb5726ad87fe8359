// Lab 8's entry point in the runner:
// top_k(d_values, d_scratch_values, d_scratch_indices, d_top_values, d_top_indices, n, k).
#include "cudalab/lab8.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

int entry_lab_number() { return 8; }
const char* entry_function_name() { return "lab8::top_k"; }

void call_lab_entry(const EntryArgs& a) {
  using wire::ElemType;
  const int64_t n = a.scalar(0), k = a.scalar(1);
  if (n < 1 || size_t(n) > lab8::kMaxN || k < 1 || k > lab8::kMaxK || k > n)
    throw BadRequest("lab 8 call with n = " + std::to_string(n) + ", k = " + std::to_string(k) +
                     " outside the contract");
  lab8::top_k(a.buffer<const float>(0, ElemType::F32), a.buffer<float>(1, ElemType::F32),
              a.buffer<int>(2, ElemType::I32), a.buffer<float>(3, ElemType::F32), a.buffer<int>(4, ElemType::I32),
              size_t(n), int(k));
}

}  // namespace cudalab::run
