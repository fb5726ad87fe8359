#include "guard_verdicts.h"

#include "diagnose.h"

namespace cudalab {

void add_guards_and_notes(CheckResult& r, const LabCall& call, const LabCallResult& res,
                          std::initializer_list<Guarded> order) {
  for (const Guarded& g : order) {
    const auto& b = call.request().buffers.at(g.buffer);
    const GuardState& state = res.guards.at(g.buffer);
    add_canary_verdict(r, g.described_as.empty() ? b.name : g.described_as, size_t(b.count), state.overwritten,
                       state.first);
  }
  for (const auto& note : res.notes) r.notes.push_back(note);
}

}  // namespace cudalab
