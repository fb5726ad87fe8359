// cudalab CPU backend: the schedule (in order, reversed, random:SEED: the order blocks start in
// and threads start and resume in), its controls (control.h), and CUDALAB_SCHEDULE read at start
// (emulator_internal.h: the emulator's other files).
#include "arena.h"
#include "emulator_internal.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

namespace cudalab_cpu::emulator {

ScheduleState g_schedule_state;
static_assert(sizeof(ScheduleState) == 4096);
std::atomic<uint64_t> g_schedule_launches{0};

namespace {

// Through the arena's one system-call instruction: the kernel runner's filter refuses any other
// change of this page's protection (arena.h).
void protect_schedule(bool writable) {
  arena::protect(&g_schedule_state, sizeof g_schedule_state, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

bool parse_schedule(const char* spec, Schedule& mode, uint64_t& seed) {
  std::string s = spec ? spec : "";
  seed = 0;
  if (s == "in-order" || s == "inorder" || s == "default" || s.empty())
    mode = Schedule::InOrder;
  else if (s == "reverse")
    mode = Schedule::Reverse;
  else if (s.rfind("random", 0) == 0) {
    mode = Schedule::Random;
    seed = s.size() > 7 && s[6] == ':' ? std::strtoull(s.c_str() + 7, nullptr, 10) : 1;
  } else
    return false;
  return true;
}

struct Init {
  Init() {
    if (const char* s = std::getenv("CUDALAB_SCHEDULE"); s && *s) {
      if (!control::set_schedule(s))
        std::fprintf(
            stderr, "cudalab: CUDALAB_SCHEDULE=%s is not a schedule (in-order, reverse, random:SEED); using in-order\n",
            s);
    }
    protect_schedule(false);
    arena::guard_page(&g_schedule_state, sizeof g_schedule_state);
  }
} g_init;

}  // namespace

}  // namespace cudalab_cpu::emulator

namespace cudalab_cpu::control {

using namespace emulator;

bool set_schedule(const char* spec) {
  Schedule mode;
  uint64_t seed;
  if (g_schedule_state.sealed || !parse_schedule(spec, mode, seed)) return false;
  protect_schedule(true);
  g_schedule_state.mode = mode;
  g_schedule_state.seed = seed;
  protect_schedule(false);
  g_schedule_launches = 0;
  return true;
}

void seal_schedule() {
  if (g_schedule_state.sealed) return;
  protect_schedule(true);
  g_schedule_state.sealed = true;
  protect_schedule(false);
}

bool schedule_sealed() { return g_schedule_state.sealed; }

bool schedule_is(const char* spec) {
  Schedule mode;
  uint64_t seed;
  return parse_schedule(spec, mode, seed) && mode == g_schedule &&
         (mode != Schedule::Random || seed == g_schedule_seed);
}

const char* schedule_name() {
  static std::string name;
  switch (g_schedule) {
    case Schedule::InOrder: return "in-order";
    case Schedule::Reverse: return "reverse";
    default: name = "random:" + std::to_string(g_schedule_seed); return name.c_str();
  }
}

}  // namespace cudalab_cpu::control
