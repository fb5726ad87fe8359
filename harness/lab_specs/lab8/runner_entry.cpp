// Lab 8's entry point in the kernel runner: LINKED WITH THE STUDENT'S LAB FILE, so untrusted like
// all of harness/runner/. It unpacks a request into top_k(d_values, d_scratch_values,
// d_scratch_indices, d_top_values, d_top_indices, n, k) by the lab's call (call.h, the one the
// checker builds its requests from).
#include "call.h"
#include "cudalab/lab8.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

const wire::LabSignature& entry_signature() { return lab8_call::kCall; }

void call_lab_entry(const EntryArgs& a) {
  using namespace lab8_call;
  const int64_t n = a.scalar(kN), k = a.scalar(kK);
  if (n < 1 || size_t(n) > lab8::kMaxN || k < 1 || k > lab8::kMaxK || k > n)
    throw BadRequest("lab 8 call with n = " + std::to_string(n) + ", k = " + std::to_string(k) +
                     " outside the contract");
  lab8::top_k(a.buffer<const float>(kValues), a.buffer<float>(kScratchValues), a.buffer<int>(kScratchIndices),
              a.buffer<float>(kTopValues), a.buffer<int>(kTopIndices), size_t(n), int(k));
}

}  // namespace cudalab::run
