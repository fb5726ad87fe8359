// Lab 1's entry point in the runner: block_sums(d_data, d_block_sums, n).
#include "cudalab/lab1.h"
#include "runner/lab_entry.h"

namespace cudalab::run {

int entry_lab_number() { return 1; }
const char* entry_function_name() { return "lab1::block_sums"; }

void call_lab_entry(const EntryArgs& a) {
  using wire::ElemType;
  lab1::block_sums(a.buffer<float>(0, ElemType::F32), a.buffer<float>(1, ElemType::F32), size_t(a.scalar(0)));
}

}  // namespace cudalab::run
