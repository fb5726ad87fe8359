// The GPU gate: how timing runs that share a GPU take turns (--gpu-gate FILE).
//
// The grader starts the next student's timing run while the current one measures, so that the
// parts that need no GPU to themselves (starting the processes, the jail, the CUDA contexts, the
// runner's hello) overlap. Every timed repetition and every row of the table is measured while
// this process holds an exclusive lock on FILE (flock), so no two timings ever share the GPU.
//
// Starting up is not free for the GPU, though: making a CUDA context maps memory and loads code
// on it. Measured on an H200 (300 students, lab 3), batches timed while the next run was starting
// ran up to 20% slow: a run's first batch was slow in one run of three, its last in one of two
// hundred, and one group of identical kernels spread 5.3% (3.8% on the H100; under 1% with the
// lock below). So a run that is starting holds FILE.start (shared: GpuStartup) until its runner
// and its own CUDA context are up, and the gate's holder takes FILE.start exclusively around each
// measured span (MeasuredSpan): whichever comes second waits for the other to end, so no start-up
// lands inside a measurement, and a span's clock starts only once it holds the lock. Both locks
// go with the process: one that dies releases them.
#pragma once
#include <string>

namespace cudalab {

class GpuGate {
 public:
  // Waits until FILE's lock is ours (none when `path` is empty). Throws std::runtime_error, naming
  // the file, when it cannot be opened or locked.
  explicit GpuGate(const std::string& path);
  ~GpuGate();
  GpuGate(const GpuGate&) = delete;
  GpuGate& operator=(const GpuGate&) = delete;

 private:
  int fd_ = -1;
};

// A run's start-up (its runner's hello, its own CUDA context), for gate `path`: holds
// path + ".start" shared until release() or the end of the object (nothing when `path` is
// empty). Throws std::runtime_error, naming the file, when it cannot be opened or locked.
class GpuStartup {
 public:
  explicit GpuStartup(const std::string& gate_path);
  ~GpuStartup() { release(); }
  void release();
  GpuStartup(const GpuStartup&) = delete;
  GpuStartup& operator=(const GpuStartup&) = delete;

 private:
  int fd_ = -1;
};

// A measured span (a timed batch from "go" to "done", the checker's own timed repeats): while it
// lasts, no run of gate `gate_path` is starting up. Waits for one that is; a no-op with no gate
// (""). The run's gate travels in its RunnerSession (measured_span_gate()).
class MeasuredSpan {
 public:
  explicit MeasuredSpan(const std::string& gate_path);
  ~MeasuredSpan();
  MeasuredSpan(const MeasuredSpan&) = delete;
  MeasuredSpan& operator=(const MeasuredSpan&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace cudalab
