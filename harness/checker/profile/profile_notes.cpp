#include "profile_notes.h"

namespace cudalab {

std::vector<std::string> profile_notes_among(const std::vector<std::string>& runner_notes) {
  std::vector<std::string> kept;
  for (const auto& n : runner_notes)
    if (n.rfind("cudalab: profile ", 0) == 0 && kept.size() < 64) kept.push_back(n);
  return kept;
}

}  // namespace cudalab
