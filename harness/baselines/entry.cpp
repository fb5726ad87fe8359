// The entry point of lab N's baseline runner (build/cuda/baselines/labN-runner, compiled with
// -DCUDALAB_BASELINE_LAB=N): a kernel runner like the student's, serving the same requests, whose
// "lab function" is one of the harness's own kernels. The checker picks which with one more scalar
// after the call's own (checker/timing/baseline_timing.h); the buffers are laid out as calls.h
// says: the student's own call where the lab's function has one that fits.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "baselines.h"
#include "calls.h"
#include "lab_specs/lab4/call.h"
#include "lab_specs/lab5/call.h"
#include "lab_specs/lab6/call.h"
#include "lab_specs/lab8/call.h"
#include "lab_specs/lab9/call.h"
#include "runner/lab_entry.h"
#include "wire/cuda_errors.h"

#ifndef CUDALAB_BASELINE_LAB
#error "compile with -DCUDALAB_BASELINE_LAB=N"
#endif

namespace cudalab::baselines {

void* scratch(int slot, size_t bytes) {
  struct Slot {
    void* p = nullptr;
    size_t bytes = 0;
  };
  static Slot slots[4];
  if (slot < 0 || slot >= 4) throw std::logic_error("no scratch slot " + std::to_string(slot));
  Slot& s = slots[slot];
  if (s.bytes < bytes) {
    if (s.p) require(cudaFree(s.p), "freeing a baseline's scratch");
    s.p = nullptr;
    require(cudaMalloc(&s.p, bytes), "allocating a baseline's scratch");
    s.bytes = bytes;
  }
  return s.p;
}

namespace {

// Labs 1, 2, 3, 7: baseline_call::sum_call, scalars {n, which}.
void sum_entry(const run::EntryArgs& a, int64_t which) {
  using namespace baseline_call;
  float* in = a.buffer<float>(kSumIn);  // the call's own fresh input: the naive tree consumes it
  float* out = a.buffer<float>(kSumOut);
  const size_t n = size_t(a.scalar(kSumN));
  if (which == 0)
    naive_interleaved_sum(in, out, n);
  else
    cub_sum(in, out, n);
}

// Lab 4: the student's call (lab_specs/lab4/call.h), scalars {rows, cols, which}.
void transpose_entry(const run::EntryArgs& a, int64_t which) {
  using namespace lab4_call;
  const float* in = a.buffer<const float>(kIn);
  float* out = a.buffer<float>(kOut);
  const int rows = int(a.scalar(kRows)), cols = int(a.scalar(kCols));
  if (which == 0)
    naive_transpose(in, out, rows, cols);
  else
    cublas_transpose(in, out, rows, cols);
}

// Labs 5 and 9: the student's call (lab_specs/lab5/call.h, lab 9's the same), scalars {M, N, K, rung}.
void product_entry(const run::EntryArgs& a, int64_t rung) {
  using namespace lab5_call;
  product(int(rung), a.buffer<const float>(kA), a.buffer<const float>(kB), a.buffer<float>(kC), int(a.scalar(kM)),
          int(a.scalar(kN)), int(a.scalar(kK)));
}

// Lab 6: the student's call (lab_specs/lab6/call.h), scalars {n, which}.
void histogram_entry(const run::EntryArgs& a, int64_t which) {
  using namespace lab6_call;
  const uint8_t* in = a.buffer<const uint8_t>(kIn);
  unsigned* hist = a.buffer<unsigned>(kHist);
  const size_t n = size_t(a.scalar(kN));
  if (which == 0)
    naive_histogram(in, hist, n);
  else
    cub_histogram(in, hist, n);
}

// Lab 8: the student's call (lab_specs/lab8/call.h), scalars {n, k, which}.
void top_k_entry(const run::EntryArgs& a, int64_t which) {
  using namespace lab8_call;
  const float* values = a.buffer<const float>(kValues);
  float* top_values = a.buffer<float>(kTopValues);
  int* top_indices = a.buffer<int>(kTopIndices);
  const size_t n = size_t(a.scalar(kN));
  const int k = int(a.scalar(kK));
  if (which == 0)
    naive_top_k(values, n, k, top_values, top_indices);
  else
    cub_sort_top_k(values, n, k, top_values, top_indices);
}

// The buffers and scalars of this lab's baseline calls (calls.h), under the runner's own name.
constexpr wire::LabSignature baseline_signature() {
  constexpr int lab = CUDALAB_BASELINE_LAB;
  const wire::LabSignature layout = lab == 4   ? lab4_call::kCall
                                    : lab == 5 ? lab5_call::kCall
                                    : lab == 6 ? lab6_call::kCall
                                    : lab == 8 ? lab8_call::kCall
                                    : lab == 9 ? lab9_call::kCall
                                               : baseline_call::sum_call(lab);
  return {lab, "the harness's baseline", layout.buffers, layout.scalars};
}

}  // namespace
}  // namespace cudalab::baselines

namespace cudalab::run {

const wire::LabSignature& entry_signature() {
  static constexpr wire::LabSignature signature = baselines::baseline_signature();
  return signature;
}

void call_lab_entry(const EntryArgs& a) {
  using namespace cudalab::baselines;
  const size_t scalars = a.request->scalars.size();
  if (scalars == 0) throw BadRequest("a baseline call names its baseline in its last scalar");
  const int64_t which = a.scalar(scalars - 1);
  switch (CUDALAB_BASELINE_LAB) {
    case 1:
    case 2:
    case 3:
    case 7: return sum_entry(a, which);
    case 4: return transpose_entry(a, which);
    case 5:
    case 9: return product_entry(a, which);
    case 6: return histogram_entry(a, which);
    case 8: return top_k_entry(a, which);
    default: throw BadRequest("lab " + std::to_string(CUDALAB_BASELINE_LAB) + " has no baselines");
  }
}

}  // namespace cudalab::run
