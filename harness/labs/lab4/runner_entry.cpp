// Lab 4's entry point in the runner: transpose(d_in, d_out, rows, cols).
#include "cudalab/lab4.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

int entry_lab_number() { return 4; }
const char* entry_function_name() { return "lab4::transpose"; }

void call_lab_entry(const EntryArgs& a) {
  using wire::ElemType;
  lab4::transpose(a.buffer<const float>(0, ElemType::F32), a.buffer<float>(1, ElemType::F32), int(a.scalar(0)), int(a.scalar(1)));
}

}  // namespace cudalab::run
