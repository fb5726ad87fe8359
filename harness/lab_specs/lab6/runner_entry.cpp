// Lab 6's entry point in the kernel runner: LINKED WITH THE STUDENT'S LAB FILE, so untrusted like
// all of harness/runner/. It unpacks a request into histogram(d_in, d_hist, n) by the lab's call
// (call.h, the one the checker builds its requests from).
#include "call.h"
#include "cudalab/lab6.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

const wire::LabSignature& entry_signature() { return lab6_call::kCall; }

void call_lab_entry(const EntryArgs& a) {
  using namespace lab6_call;
  lab6::histogram(a.buffer<const unsigned char>(kIn), a.buffer<unsigned>(kHist), size_t(a.scalar(kN)));
}

}  // namespace cudalab::run
