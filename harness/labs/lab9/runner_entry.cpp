// Lab 9's entry point in the runner: sgemm(d_A, d_B, d_C, M, N, K), as lab 5's matmul.
#include "cudalab/lab9.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

int entry_lab_number() { return 9; }
const char* entry_function_name() { return "lab9::sgemm"; }

void call_lab_entry(const EntryArgs& a) {
  using wire::ElemType;
  lab9::sgemm(a.buffer<const float>(0, ElemType::F32), a.buffer<const float>(1, ElemType::F32), a.buffer<float>(2, ElemType::F32), int(a.scalar(0)), int(a.scalar(1)), int(a.scalar(2)));
}

}  // namespace cudalab::run
