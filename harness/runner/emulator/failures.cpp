// cudalab CPU backend: a launch's failure, the notes said once, and how both name a kernel, a
// block, a thread and a line (emulator_internal.h: the emulator's other files).
#include "emulator_internal.h"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <tuple>

namespace cudalab_cpu::emulator {

std::string thread_text(const dim3& block, int tid) {
  unsigned x = tid % block.x, y = (tid / block.x) % block.y, z = tid / (block.x * block.y);
  if (block.y == 1 && block.z == 1) return std::to_string(x);
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}
std::string block_text(const uint3& b, const dim3& grid) {
  if (grid.y == 1 && grid.z == 1) return "block " + std::to_string(b.x);
  return "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
}
std::string where(const char* file, int line) { return std::string(file ? file : "?") + ":" + std::to_string(line); }

std::string g_last_failure;
control::LaunchObserver g_launch_observer = nullptr;

std::mutex g_report_mutex;
std::vector<std::string> g_notes;
bool g_quiet_notes = false;
namespace {
std::set<std::tuple<int, const char*, int>> g_warned;  // (kind, file, line) of every note said
}  // namespace

void fail_launch(Launch& L, cudaError_t code, const std::string& text) {
  std::lock_guard<std::mutex> lock(L.m);
  if (L.failed.exchange(true)) return;  // the first failure is the one worth reading
  L.error = code;
  L.failure = text;
}

void warn_once(NoteKind kind, const char* file, int line, const std::string& text) {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  if (!g_warned.insert({int(kind), file, line}).second) return;
  g_notes.push_back(text);
  if (!g_quiet_notes) std::fprintf(stderr, "%s\n", text.c_str());
}

std::string kernel_text(const Launch& L) {
  return std::string("kernel ") + L.site.kernel + " (launched at " + where(L.site.file, L.site.line) + ")";
}

#if defined(CUDALAB_CPU_RACE)
// The detector's reports, as notes: once per pair of lines (the report's header names them)
// between two take_notes(), so that every call of the lab that races says so (a check of its
// own fails); on stderr once per process.
std::set<std::string> g_races_noted;
namespace {
std::set<std::string> g_races_printed;
}  // namespace
void note_races(const std::vector<std::string>& reports) {
  std::lock_guard<std::mutex> lock(g_report_mutex);
  for (const auto& r : reports) {
    const std::string key = r.substr(0, r.find("): "));
    if (!g_races_noted.insert(key).second) continue;
    g_notes.push_back(r);
    if (!g_quiet_notes && g_races_printed.insert(key).second) std::fprintf(stderr, "%s\n", r.c_str());
  }
}
#endif

}  // namespace cudalab_cpu::emulator

namespace cudalab_cpu {

using namespace emulator;

void detail::unsupported(const char* feature, const char* file, int line) {
  std::fprintf(stderr, "cudalab: %s: the CPU backend cannot run %s. Run this lab on a GPU (BACKEND=cuda).\n",
               where(file, line).c_str(), feature);
  std::exit(2);
}

void detail::stop_running_thread(cudaError_t code, const std::string& what) {
  Worker* w = t_worker;
  if (!w || !w->current || !w->launch) return;
  fail_launch(*w->launch, code,
              "cudalab: " + kernel_text(*w->launch) + ": thread " + thread_text(w->launch->block, w->current->tid) +
                  " of " + block_text(blockIdx, w->launch->grid) + " " + what);
  // The thread cannot go on; park it forever (the block is abandoned, its stacks started afresh).
  w->slots[w->current->tid].state = kAtWarp;
  yield_fiber(*w, w->current);
}

void trap(const char* file, int line) {
  detail::stop_running_thread(cudaErrorLaunchFailure, "called __trap() at " + where(file, line));
  std::fprintf(stderr, "cudalab: __trap() at %s\n", where(file, line).c_str());
  std::abort();
}

}  // namespace cudalab_cpu
