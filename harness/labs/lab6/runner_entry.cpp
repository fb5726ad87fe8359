// Lab 6's entry point in the runner: histogram(d_in, d_hist, n).
#include "cudalab/lab6.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

int entry_lab_number() { return 6; }
const char* entry_function_name() { return "lab6::histogram"; }

void call_lab_entry(const EntryArgs& a) {
  using wire::ElemType;
  lab6::histogram(a.buffer<const unsigned char>(0, ElemType::U8), a.buffer<unsigned>(1, ElemType::U32),
                  size_t(a.scalar(0)));
}

}  // namespace cudalab::run
