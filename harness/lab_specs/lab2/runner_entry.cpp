// Lab 2's entry point in the kernel runner: LINKED WITH THE STUDENT'S LAB FILE, so untrusted like
// all of harness/runner/. It unpacks a request into shared_sum(d_in, d_block_sums, d_sum, n) by the
// lab's call (call.h, the one the checker builds its requests from).
#include "call.h"
#include "cudalab/lab2.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

const wire::LabSignature& entry_signature() { return lab2_call::kCall; }

void call_lab_entry(const EntryArgs& a) {
  using namespace lab2_call;
  // The timing asks for several calls over consecutive slices of n elements (kCalls): one call
  // fits in the L2 cache, so DRAM is timed over many (timing.cpp).
  const float* in = a.buffer<const float>(kIn);
  float* sums = a.buffer<float>(kBlockSums);
  float* total = a.buffer<float>(kSum);
  const size_t n = size_t(a.scalar(kN));
  const size_t calls = a.has_scalar(kCalls) ? size_t(a.scalar(kCalls)) : 1;
  if (calls == 0 || calls * n > a.request->buffers[kIn].count) throw BadRequest("the slices do not fit the input");
  for (size_t k = 0; k < calls; ++k) lab2::shared_sum(in + k * n, sums, total, n);
}

}  // namespace cudalab::run
