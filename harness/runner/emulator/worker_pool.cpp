// cudalab CPU backend: the worker OS threads (one per core; the launching thread is one of them),
// each taking whole blocks of a launch (emulator_internal.h: the emulator's other files).
#include "emulator_internal.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <thread>

namespace cudalab_cpu::emulator {

namespace {

struct Pool {
  std::mutex m;
  std::condition_variable wake, done;
  Launch* job = nullptr;
  uint64_t serial = 0;
  int busy = 0;
  int helpers_wanted = 0;
  int helpers_taken = 0;
  std::vector<std::thread> threads;

  void helper_main() {
    uint64_t seen = 0;
    for (;;) {
      Launch* L;
      {
        std::unique_lock<std::mutex> lock(m);
        wake.wait(lock, [&] { return serial != seen && helpers_taken < helpers_wanted; });
        seen = serial;
        ++helpers_taken;
        L = job;
      }
      run_blocks(*L);
      std::lock_guard<std::mutex> lock(m);
      if (--busy == 0) done.notify_all();
    }
  }
};

Pool* g_pool = nullptr;

}  // namespace

int g_workers = 0;

int configured_workers() {
  if (g_workers) return g_workers;
  int n = int(std::thread::hardware_concurrency());
  if (const char* e = std::getenv("CUDALAB_CPU_WORKERS")) n = std::atoi(e);
  g_workers = std::clamp(n, 1, 256);
  return g_workers;
}

void run_on_pool(Launch& L) {
  int helpers = int(std::min<uint64_t>(uint64_t(configured_workers() - 1), L.blocks - 1));
  if (helpers <= 0) {
    run_blocks(L);
    return;
  }
  if (!g_pool) {
    g_pool = new Pool;  // never destroyed: helpers may still be parked at exit
  }
  Pool& p = *g_pool;
  {
    std::lock_guard<std::mutex> lock(p.m);
    while (int(p.threads.size()) < helpers) {
      p.threads.emplace_back([&p] { p.helper_main(); });
      p.threads.back().detach();
    }
    p.job = &L;
    p.busy = helpers;
    p.helpers_wanted = helpers;
    p.helpers_taken = 0;
    ++p.serial;
  }
  p.wake.notify_all();
  run_blocks(L);
  std::unique_lock<std::mutex> lock(p.m);
  p.done.wait(lock, [&] { return p.busy == 0; });
}

}  // namespace cudalab_cpu::emulator
