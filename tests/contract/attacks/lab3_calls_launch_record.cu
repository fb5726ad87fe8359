// Attack: call the runner's own launch-record functions, so an empty kernel plus a host loop
// looks like GPU work. The runner's internals are not on any lab's list.
// expect-exit: 1
// expect-cause: calls_outside_contract
// expect-message: cudalab::run::record_launch
#include "cudalab/lab3.h"
namespace cudalab::run {
void record_launch(const char* kernel, const unsigned grid[3], const unsigned block[3], unsigned long shared);
void launch_record_stop();
}  // namespace cudalab::run
__global__ void nothing() {}
namespace lab3 {
void multilevel_sum(const float* d_in, float* d_scratch, float* d_sum, size_t n) {
  unsigned grid[3] = {1, 1, 1}, block[3] = {256, 1, 1};
  cudalab::run::record_launch("reduce_level_kernel", grid, block, 0);
  cudalab::run::launch_record_stop();
  nothing<<<1, 1>>>();
}
}  // namespace lab3
