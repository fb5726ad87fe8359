// Attack (issue 16, timing): a slow multi-level sum (one thread of each block adds its 1,024
// values in turn: slower than the harness's naive kernel) with its own cudaEventElapsedTime,
// which reports 0.09 ms, a time just inside the old bounds on an H100 (half the wall clock less
// 0.5 ms let anything through below a millisecond; the floor, a third of a copy's time, sat
// below the reference's own 0.1 ms): it earned 75.31 of 78 points. The contract refuses the
// definition on both backends; were it linked, the checker's clock would refuse the time (a
// batch of calls takes its real time on that clock: checker/timing/timing_bound.h).
// expect-exit: 1
// expect-cause: defines_reserved_name
// expect-message: cudaEventElapsedTime
#include "cudalab/lab3.h"

#ifdef CUDALAB_BACKEND_CPU
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
#else
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
#endif
  *ms = 0.09f;
  return cudaSuccess;
}

__global__ void serial_chunks(const float* in, float* out, size_t n) {
  const size_t begin = size_t(blockIdx.x) * 1024, end = begin + 1024 < n ? begin + 1024 : n;
  if (threadIdx.x != 0) return;
  float s = 0.0f;
  for (size_t i = begin; i < end; ++i) s += in[i];
  out[blockIdx.x] = s;
}

namespace lab3 {
void multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  const float* in = d_in;
  float* out = d_scratch;
  for (size_t m = n;;) {
    const size_t blocks = (m + 1023) / 1024;
    serial_chunks<<<unsigned(blocks), 32>>>(in, blocks == 1 ? d_sum : out, m);
    CUDALAB_CHECK_LAUNCH("serial_chunks");
    if (blocks == 1) break;
    in = out;
    out += blocks;
    m = blocks;
  }
}
}  // namespace lab3
