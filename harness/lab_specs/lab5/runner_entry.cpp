// Lab 5's entry point in the kernel runner: LINKED WITH THE STUDENT'S LAB FILE, so untrusted like
// all of harness/runner/. It unpacks a request into matmul(d_A, d_B, d_C, M, N, K) by the lab's
// call (call.h, the one the checker builds its requests from).
#include "call.h"
#include "cudalab/lab5.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

const wire::LabSignature& entry_signature() { return lab5_call::kCall; }

void call_lab_entry(const EntryArgs& a) {
  using namespace lab5_call;
  lab5::matmul(a.buffer<const float>(kA), a.buffer<const float>(kB), a.buffer<float>(kC), int(a.scalar(kM)),
               int(a.scalar(kN)), int(a.scalar(kK)));
}

}  // namespace cudalab::run
