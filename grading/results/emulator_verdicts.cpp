#include "emulator_verdicts.h"

#include <algorithm>

namespace grading {
namespace {

bool emulator_judged(const CheckOutcome& c) { return c.judged_by == "emulator"; }

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
