// Gradescope's results.json (their published autograder output format): a score and one
// test per check plus one for speed; hidden checks keep their points but not their details.
#include <cmath>

#include "scoring.h"
#include "safe_io/text.h"
#include "writers.h"

namespace grading {

// The lab is not named: Gradescope shows the assignment's own title above the results.
nlohmann::json gradescope_json(const StudentResult& r, const Rubric& rubric, const LabInfo& /*lab*/) {
  using nlohmann::json;
  const Score s = score(r, rubric);
  json tests = json::array();
  int number = 1;
  for (size_t i = 0; i < s.checks.size(); ++i) {
    const auto& c = s.checks[i];
    const auto& o = r.checks[i];
    std::string output;
    if (!c.counted) {
      output = "Not graded on the CPU backend (too large to emulate); it counts when graded on a GPU.";
    } else if (r.verdict != kGraded) {
      output = r.reason;
    } else {
      output = o.message;
      for (size_t k = 0; k < o.details.size() && k < 8; ++k) output += "\n" + o.details[k];
    }
    json t = {{"name", c.id + ": " + c.title},
              {"number", std::to_string(number++)},
              {"score", c.points},
              {"max_score", c.counted ? c.max_points : 0.0},
              {"status", c.status == "pass" ? "passed" : "failed"},
              {"output", clean_text(output)},
              {"visibility", c.hidden ? "hidden" : "visible"}};
    tests.push_back(t);
  }
  tests.push_back({{"name", "speed against the reference solution"},
                   {"number", std::to_string(number)},
                   {"score", s.speed.points},
                   {"max_score", s.speed.counted ? s.speed.max_points : 0.0},
                   {"status", s.speed.status == "graded" && s.speed.points > 0 ? "passed" : "failed"},
                   {"output", s.speed.status == "graded" ? s.speed.note + ".\nRule: " + s.speed.rule + "."
                                                         : "Not graded: " + s.speed.note},
                   {"visibility", "visible"}});
  std::string output = r.verdict == kGraded
                           ? (s.correct ? "Every check passed." : "Some checks did not pass: see each test below.")
                           : r.reason;
  if ((r.verdict == kBuildFailed || r.rule == "link_contract") && !r.build_log.empty()) output += "\n\n" + r.build_log;
  for (const auto& n : r.notes) output += "\n- " + n;
  // --profile: the same section as feedback.md's, in the output only (never a test: no points).
  if (r.profile_status == "made")
    output += std::string("\n\n") + kProfileHeading + (r.profile_size.empty() ? "" : ", size " + r.profile_size) +
              ":\n" + r.profile_text;
  else if (!r.profile_status.empty())
    output += std::string("\n\n") + kProfileHeading + ": could not be made this time (" + r.profile_text +
              "); that costs you nothing.";
  json out = {{"score", s.total},
              {"execution_time", int(std::lround(r.seconds))},
              {"output", clean_text(output)},
              {"visibility", "visible"},
              {"stdout_visibility", "hidden"},
              {"tests", tests}};
  // Gradescope's leaderboard (it shows each student's chosen pseudonym, never a name): the
  // kernel's time and its speed-up over the harness's naive kernel, for a correct, timed kernel.
  if (s.speed.status == "graded" && r.student_ms) {
    json board = json::array();
    board.push_back({{"name", "Kernel time (ms)"}, {"value", std::round(*r.student_ms * 1e4) / 1e4}, {"order", "asc"}});
    if (s.speed.speedup > 0)
      board.push_back({{"name", "Speed-up over the naive kernel"}, {"value", std::round(s.speed.speedup * 100) / 100}});
    out["leaderboard"] = board;
  }
  return out;
}

}  // namespace grading
