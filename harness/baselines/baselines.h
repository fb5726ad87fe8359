// The harness's own GPU kernels that a lab's timing compares against (the naive kernel, the
// vendor library, lab 9's ladder), as functions that enqueue one call's work on the legacy
// default stream and return: no timing, no allocation after the first call of a size, no
// synchronization. They run in a kernel runner of their own (build/cuda/baselines/labN-runner,
// entry.cpp), so that the checker times them exactly as it times the student's code
// (checker/timing/baseline_timing.h): same process boundary, fresh inputs for every call, the L2 flushed
// before each batch, batches of R calls, the median batch. Trusted code: built from harness/
// only, never with a lab file.
#pragma once
#include <cstddef>
#include <cstdint>

namespace cudalab::baselines {

// Device scratch that lives as long as the runner: slot `slot` grown to at least `bytes`. Only a
// call that needs more than the last one allocates (a warm-up, since a timing's calls are alike).
void* scratch(int slot, size_t bytes);

// Sums (labs 1, 2, 3, 7): *out = the sum of in[0, n).
// The interleaved %-stride tree in global memory, 1024 threads a block, level after level,
// in place: `in` is the call's own fresh input, so it may be consumed.
void naive_interleaved_sum(float* in, float* out, size_t n);
void cub_sum(const float* in, float* out, size_t n);

// Lab 4: out (cols x rows) = the transpose of in (rows x cols), row-major.
void naive_transpose(const float* in, float* out, int rows, int cols);
void cublas_transpose(const float* in, float* out, int rows, int cols);

// Lab 6: hist[256] = the histogram of n bytes.
void naive_histogram(const uint8_t* in, unsigned* hist, size_t n);
void cub_histogram(const uint8_t* in, unsigned* hist, size_t n);  // n < 2^31

// Lab 8: the top k of n values in lab 8's order (larger first, ties to the lower index).
void naive_top_k(const float* values, size_t n, int k, float* top_values, int* top_indices);
void cub_sort_top_k(const float* values, size_t n, int k, float* top_values, int* top_indices);  // n < 2^31

// Labs 5 and 9: C = A B (row-major, M x K times K x N). Rungs 0-4 of lab 9's ladder
// (checker/gpu/product_baselines.h names them); kCublasRung is cuBLAS SGEMM.
constexpr int kCublasRung = 9;  // not a rung: lab 9's own rung 5 is its reference solution
void product(int rung, const float* A, const float* B, float* C, int M, int N, int K);

}  // namespace cudalab::baselines
