// cudalab CPU backend: a kernel launch (what <<<...>>> calls): the limits a GPU refuses a launch
// past, the run on the worker pool, and its failure, returned as a GPU's runtime would
// (emulator_internal.h: the emulator's other files).
#include "emulator_internal.h"  // (with race.h or profile.h in those builds)

#include <cstdio>

namespace cudalab_cpu {

using namespace emulator;

namespace {
std::atomic<uint64_t> g_launch_serial{0};
}  // namespace

cudaError_t launch_kernel(const LaunchSite& site, dim3 grid, dim3 block, size_t smem, cudaStream_t, KernelBody body) {
  if (t_worker && t_worker->current) {
    detail::unsupported("dynamic parallelism (launching a kernel from inside a kernel)", site.file, site.line);
  }
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  // Above 48 KiB of dynamic shared memory a GPU needs the kernel's attribute raised first, and
  // never gives more than its opt-in limit: past either it refuses the launch (invalid argument).
  const bool smem_refused = smem > detail::kMaxDynamicSmemOptin || smem > detail::dynamic_smem_limit(site.kernel);
  const bool refused = threads == 0 || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
                       blocks == 0 || grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535 || smem_refused;
  // A refused launch is recorded too, as a GPU's launch record has it: the checker explains the
  // refusal from the grid and block that were asked for.
  if (refused && g_launch_observer) g_launch_observer(site.kernel, grid, block, smem);
  if (threads == 0 || threads > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64 || blocks == 0 ||
      grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
    detail::set_last_error(cudaErrorInvalidConfiguration);
    return cudaErrorInvalidConfiguration;
  }
  if (smem_refused) {
    detail::set_last_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  if (cudaError_t lost = detail::device_failure(); lost != cudaSuccess) {
    detail::set_last_error(lost);  // a kernel failed before: the context is lost, nothing more runs
    return lost;
  }
  ensure_altstack();
  // Launches from several host threads run one after another, as on CUDA's default stream.
  static std::mutex launch_mutex;
  std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
  if (g_launch_observer) g_launch_observer(site.kernel, grid, block, smem);
  Launch L;
  L.site = site;
  L.grid = grid;
  L.block = block;
  L.smem = smem;
  L.body = body;
  L.blocks = blocks;
  L.threads = unsigned(threads);
  L.serial = ++g_launch_serial;
  L.schedule_index = g_schedule_launches++;
  // Host code's own threadIdx etc. are untouched by the kernel: save and restore them.
  uint3 saved_t = threadIdx, saved_b = blockIdx;
  dim3 saved_bd = blockDim, saved_gd = gridDim;
  detail::kernels_begin();  // device memory, closed to the lab's host code, is the kernel's
#if defined(CUDALAB_CPU_RACE)
  race::launch_begin(grid.x, grid.y, block.x, block.y, block.z);
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::launch_begin(blocks, L.threads, L.body.obj);
#endif
  run_on_pool(L);
#if defined(CUDALAB_CPU_RACE)
  {
    std::vector<std::string> races = race::launch_end(kernel_text(L));
    // A launch that faulted is reported by its fault. The detector's hooks run before each access,
    // so it saw the faulting stores as if they had happened: its notes would be about writes that
    // never were (two blocks "racing" on the wild address itself).
    if (!L.failed) note_races(races);
  }
#endif
#if defined(CUDALAB_CPU_PROFILE)
  profile::launch_end(site.kernel, site.file, site.line, grid.x, grid.y, grid.z, L.threads, smem);
#endif
  const std::string slack = detail::kernels_end();
  threadIdx = saved_t, blockIdx = saved_b, blockDim = saved_bd, gridDim = saved_gd;
  if (!slack.empty())
    fail_launch(L, cudaErrorIllegalAddress,
                "cudalab: " + kernel_text(L) + " wrote to memory " + slack +
                    ": an illegal address (cudaErrorIllegalAddress on a GPU). Check the index against the array's "
                    "size; rebuild with CHECK=asan to see the exact line.");
  if (L.failed) {
    std::lock_guard<std::mutex> lock(L.m);  // written by whichever thread found it
    g_last_failure = L.failure;
    if (!g_quiet_notes) std::fprintf(stderr, "%s\n", L.failure.c_str());  // the runner reports it itself
    detail::set_pending_error(L.error, L.failure);
    return L.error;
  }
  return cudaSuccess;
}

}  // namespace cudalab_cpu
