// Lab 4's entry point in the kernel runner: LINKED WITH THE STUDENT'S LAB FILE, so untrusted like
// all of harness/runner/. It unpacks a request into transpose(d_in, d_out, rows, cols) by the lab's
// call (call.h, the one the checker builds its requests from).
#include "call.h"
#include "cudalab/lab4.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

const wire::LabSignature& entry_signature() { return lab4_call::kCall; }

void call_lab_entry(const EntryArgs& a) {
  using namespace lab4_call;
  lab4::transpose(a.buffer<const float>(kIn), a.buffer<float>(kOut), int(a.scalar(kRows)), int(a.scalar(kCols)));
}

}  // namespace cudalab::run
