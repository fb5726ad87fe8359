// The GPU gate: how timing runs that share a GPU take turns (--gpu-gate FILE).
//
// The grader starts the next student's timing run while the current one measures, so that the
// parts that need no GPU to themselves (starting the processes, the jail, the CUDA context, the
// runner's hello) overlap. Every timed repetition and every row of the table is measured while
// this process holds an exclusive lock on FILE (flock), so no two timings ever share the GPU.
// The lock goes with the process: a checker that dies releases it.
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

}  // namespace cudalab
