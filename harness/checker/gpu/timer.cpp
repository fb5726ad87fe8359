#include "timer.h"

#include <cuda_runtime.h>

#include <chrono>

#include "checker/calls/runner_session.h"
#include "checker/timing/gpu_gate.h"
#include "checker/timing/stats.h"
#include "wire/cuda_errors.h"

namespace cudalab {

void make_gpu_context() { require(cudaFree(nullptr), "making the checker's CUDA context"); }

void flush_l2() {
  static void* scratch = nullptr;
  static size_t bytes = 0;
  if (!scratch) {
    int dev = 0, l2 = 0;
    require(cudaGetDevice(&dev), "cudaGetDevice");
    require(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "reading the L2 size");
    bytes = 2 * size_t(l2 > 0 ? l2 : (64 << 20));
    require(cudaMalloc(&scratch, bytes), "allocating the L2 flush buffer");
  }
  require(cudaMemsetAsync(scratch, 0x5A, bytes), "flushing the L2 cache");
}

Timing time_gpu(const RunnerSession& runner, const std::function<void()>& work, const TimerConfig& cfg,
                const std::function<void()>& prepare) {
  runner.require_no_student_process("a baseline or ceiling on the GPU");  // nothing of the student's beside it
  cudaEvent_t start, stop;
  require(cudaEventCreate(&start), "cudaEventCreate");
  require(cudaEventCreate(&stop), "cudaEventCreate");
  Timing t;
  const MeasuredSpan span(runner.measured_span_gate());  // no other run of the gate starting up meanwhile (gpu_gate.h)
  for (int i = 0; i < cfg.warmups + cfg.repeats; ++i) {
    if (prepare) prepare();
    if (cfg.flush_l2) flush_l2();
    require(cudaEventRecord(start), "cudaEventRecord");
    work();
    require(cudaEventRecord(stop), "cudaEventRecord");
    require(cudaEventSynchronize(stop), "waiting for the timed work");
    require(cudaGetLastError(), "the timed work");
    float ms = 0;
    require(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (i >= cfg.warmups) t.all_ms.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  t.median_ms = median(t.all_ms);
  t.spread = relative_spread(t.all_ms);
  return t;
}

Timing time_host(const RunnerSession& runner, const std::function<void()>& work, int repeats) {
  runner.require_no_student_process("one CPU core's time");
  Timing t;
  // The first run warms the caches up; a run of a tenth of a second or more is its own
  // measurement (its data, hundreds of MB made by the caller, is in memory already, and caches
  // that small change nothing): its noise is far below the hundreds of times it stands from the
  // GPU rows, and the runs it saves were up to a second of a passing `make lab4` (0.35 s a run
  // on the H100's host) or `make lab6` (0.21 s).
  const auto w0 = std::chrono::steady_clock::now();
  work();
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
  if (first_ms >= kLongHostRunMs) {
    t.all_ms = {first_ms};
    repeats = 0;
  }
  for (int i = 0; i < repeats; ++i) {
    auto a = std::chrono::steady_clock::now();
    work();
    auto b = std::chrono::steady_clock::now();
    t.all_ms.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  t.median_ms = median(t.all_ms);
  t.spread = relative_spread(t.all_ms);
  return t;
}

}  // namespace cudalab
