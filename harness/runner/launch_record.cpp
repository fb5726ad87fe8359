#include "launch_record.h"

#include <atomic>
#include <mutex>

namespace cudalab::run {
namespace {
std::mutex g_mutex;
std::atomic<bool> g_on{false};
std::vector<wire::Launch> g_launches;
uint64_t g_total = 0;
std::atomic<uint64_t> g_bytes_to_host{0};
}  // namespace

void launch_record_start() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_launches.clear();
  g_total = 0;
  g_bytes_to_host = 0;
  g_on = true;
}

void launch_record_stop() { g_on = false; }

std::vector<wire::Launch> launch_record_take(uint64_t& total) {
  std::lock_guard<std::mutex> lock(g_mutex);
  total = g_total;
  std::vector<wire::Launch> out;
  out.swap(g_launches);
  return out;
}

void record_bytes_to_host(uint64_t bytes) {
  if (g_on) g_bytes_to_host += bytes;
}

uint64_t launch_record_bytes_to_host() { return g_bytes_to_host; }

void record_launch(const char* kernel, const unsigned grid[3], const unsigned block[3], uint64_t shared_bytes) {
  if (!g_on) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_total;
  if (g_launches.size() >= wire::kMaxLaunchesRecorded) return;
  wire::Launch l;
  l.kernel = kernel ? kernel : "?";
  if (l.kernel.size() > 200) l.kernel.resize(200);
  for (int i = 0; i < 3; ++i) l.grid[i] = grid[i], l.block[i] = block[i];
  l.shared_bytes = shared_bytes;
  g_launches.push_back(std::move(l));
}

}  // namespace cudalab::run
