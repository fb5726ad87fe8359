// Lab 1's entry point in the kernel runner: LINKED WITH THE STUDENT'S LAB FILE, so untrusted like
// all of harness/runner/. It unpacks a request into block_sums(d_data, d_block_sums, n) by the
// lab's call (call.h, the one the checker builds its requests from).
#include "call.h"
#include "cudalab/lab1.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

const wire::LabSignature& entry_signature() { return lab1_call::kCall; }

void call_lab_entry(const EntryArgs& a) {
  using namespace lab1_call;
  lab1::block_sums(a.buffer<float>(kData), a.buffer<float>(kBlockSums), size_t(a.scalar(kN)));
}

}  // namespace cudalab::run
