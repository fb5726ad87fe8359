// Lab 7's entry point in the runner: atomic_sum(d_in, d_sum, n).
#include "cudalab/lab7.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

int entry_lab_number() { return 7; }
const char* entry_function_name() { return "lab7::atomic_sum"; }

void call_lab_entry(const EntryArgs& a) {
  using wire::ElemType;
  lab7::atomic_sum(a.buffer<const float>(0, ElemType::F32), a.buffer<float>(1, ElemType::F32), size_t(a.scalar(0)));
}

}  // namespace cudalab::run
