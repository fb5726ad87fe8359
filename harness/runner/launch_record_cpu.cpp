// The CPU backend's launch record: the emulator calls an observer for every launch, and for
// every copy of device data to the host or host-visible allocation.
#include <cuda_runtime.h>

#include "launch_record.h"
#include "runner/emulator/control.h"

namespace cudalab::run {
namespace {

void observe(const char* kernel, dim3 grid, dim3 block, size_t shared) {
  const unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  record_launch(kernel, g, b, shared);
}

void host_data(size_t bytes) { record_bytes_to_host(bytes); }

struct Install {
  Install() {
    cudalab_cpu::control::set_launch_observer(observe);
    cudalab_cpu::control::set_host_data_observer(host_data);
  }
} g_install;

}  // namespace

bool launch_record_self_test() {
  launch_record_start();
  cudalab_cpu::launch(
      __FILE__, __LINE__, "self_test", [](int) {}, dim3(1), dim3(1), 0, nullptr)(0);
  launch_record_stop();
  uint64_t total = 0;
  launch_record_take(total);
  return total == 1;
}

}  // namespace cudalab::run
