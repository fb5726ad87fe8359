// The CPU backend's profile notes among a profile run's runner notes, as received (each call's
// LabCallResult carries them, and the check's CallContext gathers them): profile_figures.h reads
// them as numbers, never as the report's words.
#pragma once
#include <string>
#include <vector>

namespace cudalab {

// Those that start "cudalab: profile ", at most 64 of them.
std::vector<std::string> profile_notes_among(const std::vector<std::string>& runner_notes);

}  // namespace cudalab
