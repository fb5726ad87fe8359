// Lab 3's entry point in the kernel runner: LINKED WITH THE STUDENT'S LAB FILE, so untrusted like
// all of harness/runner/. It unpacks a request into multilevel_sum(d_in, d_scratch, d_sum, n) by
// the lab's call (call.h, the one the checker builds its requests from).
#include "call.h"
#include "cudalab/lab3.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

const wire::LabSignature& entry_signature() { return lab3_call::kCall; }

void call_lab_entry(const EntryArgs& a) {
  using namespace lab3_call;
  lab3::multilevel_sum(a.buffer<const float>(kIn), a.buffer<float>(kScratch), a.buffer<float>(kSum),
                       size_t(a.scalar(kN)));
}

}  // namespace cudalab::run
