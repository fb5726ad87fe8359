// The entry point of lab N's baseline runner (build/cuda/baselines/labN-runner, compiled with
// -DCUDALAB_BASELINE_LAB=N): a kernel runner like the student's, serving the same requests, whose
// "lab function" is one of the harness's own kernels. The checker picks which with one more scalar
// after the lab's own (checker/timing/baseline_timing.h); the buffers are laid out as below, the student's
// own layout where the lab's function has one that fits.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "baselines.h"
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

using wire::ElemType;

// Labs 1, 2, 3, 7: buffers {input n floats, sum 1 float}, scalars {n, which}.
void sum_entry(const run::EntryArgs& a, int64_t which) {
  float* in = a.buffer<float>(0, ElemType::F32);  // the call's own fresh input: the naive tree consumes it
  float* out = a.buffer<float>(1, ElemType::F32);
  const size_t n = size_t(a.scalar(0));
  if (which == 0) naive_interleaved_sum(in, out, n);
  else cub_sum(in, out, n);
}

// Lab 4: the student's buffers {in, out}, scalars {rows, cols, which}.
void transpose_entry(const run::EntryArgs& a, int64_t which) {
  const float* in = a.buffer<const float>(0, ElemType::F32);
  float* out = a.buffer<float>(1, ElemType::F32);
  const int rows = int(a.scalar(0)), cols = int(a.scalar(1));
  if (which == 0) naive_transpose(in, out, rows, cols);
  else cublas_transpose(in, out, rows, cols);
}

// Labs 5 and 9: the student's buffers {A, B, C}, scalars {M, N, K, rung}.
void product_entry(const run::EntryArgs& a, int64_t rung) {
  product(int(rung), a.buffer<const float>(0, ElemType::F32), a.buffer<const float>(1, ElemType::F32),
          a.buffer<float>(2, ElemType::F32), int(a.scalar(0)), int(a.scalar(1)), int(a.scalar(2)));
}

// Lab 6: the student's buffers {bytes, 256 bins}, scalars {n, which}.
void histogram_entry(const run::EntryArgs& a, int64_t which) {
  const uint8_t* in = a.buffer<const uint8_t>(0, ElemType::U8);
  unsigned* hist = a.buffer<unsigned>(1, ElemType::U32);
  const size_t n = size_t(a.scalar(0));
  if (which == 0) naive_histogram(in, hist, n);
  else cub_histogram(in, hist, n);
}

// Lab 8: the student's buffers {values, scratch values, scratch indices, top values, top
// indices}, scalars {n, k, which}.
void top_k_entry(const run::EntryArgs& a, int64_t which) {
  const float* values = a.buffer<const float>(0, ElemType::F32);
  float* top_values = a.buffer<float>(3, ElemType::F32);
  int* top_indices = a.buffer<int>(4, ElemType::I32);
  const size_t n = size_t(a.scalar(0));
  const int k = int(a.scalar(1));
  if (which == 0) naive_top_k(values, n, k, top_values, top_indices);
  else cub_sort_top_k(values, n, k, top_values, top_indices);
}

}  // namespace
}  // namespace cudalab::baselines

namespace cudalab::run {

int entry_lab_number() { return CUDALAB_BASELINE_LAB; }
const char* entry_function_name() { return "the harness's baseline"; }

void call_lab_entry(const EntryArgs& a) {
  using namespace cudalab::baselines;
  const size_t scalars = a.request->scalars.size();
  if (scalars == 0) throw BadRequest("a baseline call names its baseline in its last scalar");
  const int64_t which = a.scalar(scalars - 1);
  switch (CUDALAB_BASELINE_LAB) {
    case 1: case 2: case 3: case 7: return sum_entry(a, which);
    case 4: return transpose_entry(a, which);
    case 5: case 9: return product_entry(a, which);
    case 6: return histogram_entry(a, which);
    case 8: return top_k_entry(a, which);
    default: throw BadRequest("lab " + std::to_string(CUDALAB_BASELINE_LAB) + " has no baselines");
  }
}

}  // namespace cudalab::run
