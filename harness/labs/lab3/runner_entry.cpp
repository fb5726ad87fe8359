// Lab 3's entry point in the runner: multilevel_sum(d_in, d_scratch, d_sum, n).
#include "cudalab/lab3.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

int entry_lab_number() { return 3; }
const char* entry_function_name() { return "lab3::multilevel_sum"; }

void call_lab_entry(const EntryArgs& a) {
  using wire::ElemType;
  lab3::multilevel_sum(a.buffer<const float>(0, ElemType::F32), a.buffer<float>(1, ElemType::F32),
                       a.buffer<float>(2, ElemType::F32), size_t(a.scalar(0)));
}

}  // namespace cudalab::run
