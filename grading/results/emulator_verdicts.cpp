#include "emulator_verdicts.h"

#include <algorithm>

namespace grading {
namespace {

bool emulator_judged(const CheckOutcome& c) { return c.judged_by == "emulator"; }

// An array indexed or read past its end: the race build stops it every time (its cause, as the
// checker reports it); a GPU's plain run reads or overwrites another variable, without any error.
bool past_an_array_end(const CheckOutcome& e) { return e.status != "pass" && e.cause == "past_array_end"; }

}  // namespace

bool has_emulator_checks(const std::vector<CheckOutcome>& checks) {
  return std::any_of(checks.begin(), checks.end(), emulator_judged);
}

void take_emulator_verdicts(std::vector<CheckOutcome>& checks, const std::vector<CheckOutcome>& emulator) {
  for (auto& c : checks) {
    auto same = std::find_if(emulator.begin(), emulator.end(), [&](const CheckOutcome& e) { return e.id == c.id; });
    // A system call the runner's filter refused is the file's, whichever backend's run met it.
    if (same != emulator.end() && same->cause == "forbidden_call" && c.cause != "forbidden_call") {
      c = *same;
      continue;
    }
    // A race that changed the answers in the emulator's run (the checker fails a check on one only
    // then: wrong in either order, or a lost update): a GPU's run of it passes or fails by chance.
    if (same != emulator.end() && same->status == "fail" && same->cause == "race" && !emulator_judged(c)) {
      c = *same;
      c.details.push_back(
          "judged by the CPU backend's emulator, whose race detector saw it and whose runs in two orders "
          "show what it does to your answers: the same verdict on every run, where a GPU's changes by chance");
      continue;
    }
    if (same != emulator.end() && c.status == "pass" && past_an_array_end(*same)) {
      const std::string gpu_status = c.status;
      c = *same;
      c.details.push_back(
          "judged by the CPU backend's emulator, which checks every index its race build sees: a "
          "GPU's run (" +
          gpu_status + " here) does not notice, and this verdict is the same on every run");
      continue;
    }
    if (!emulator_judged(c)) continue;
    if (same == emulator.end()) {
      c.details.push_back("the CPU backend's run of your file has no check " + c.id + ", so this is the GPU's verdict");
      continue;
    }
    c.status = same->status;
    c.cause = same->cause;
    c.message = same->message;
    c.details = same->details;
    c.details.push_back(
        "judged by the CPU backend's emulator, which sees every thread reach (or skip) each "
        "barrier and, under its race detector, every access: the same verdict wherever your file is "
        "graded");
  }
}

void keep_checker_verdicts(std::vector<CheckOutcome>& checks, const std::string& why) {
  for (auto& c : checks)
    if (emulator_judged(c)) c.details.push_back("not judged by the CPU backend's emulator (" + why + ")");
}

}  // namespace grading
