// PROFILE=1's run on the CPU backend (profile_run.h).
#include "profile_run.h"

#include <cstdlib>
#include <stdexcept>

#include "checker/calls/lab_call.h"
#include "checker/calls/runner_session.h"
#include "checker/calls/runner_words.h"
#include "profile_notes.h"

namespace cudalab {

Shape profile_shape(int lab) {
  switch (lab) {
    case 4: return Shape{{512, 512}};
    case 5:
    case 9: return Shape{{256, 256, 256}};
    case 3: return Shape{{1 << 20}};  // the reference takes 8,192 elements a block: 128 blocks
    case 8: return Shape{{1 << 16}};
    default: return Shape{{1 << 18}};
  }
}

// The multiply-adds the lab's problem needs at `shape`: a matrix product's M N K (labs 5 and 9,
// whose shape is M x N x K), else 0. The emulator counts loads, not arithmetic: every correct
// product does these, so data reuse is judged against them.
double profile_multiply_adds(int lab, const Shape& shape) {
  return (lab == 5 || lab == 9) && shape.dims.size() == 3 ? double(shape.elements()) : 0;
}

namespace {

struct OneRun {
  ProfileFigures figures;
  LabSource source;
};

// One call of the lab in the runner at `program`; the checks' runner is finished first, and this
// one after (the next gets a fresh process).
OneRun profile_once(RunnerSession& session, const LabSuite& suite, const std::string& program, const CheckCase& c,
                    uint64_t seed, const std::string& whose, bool unwrapped = false) {
  OneRun run;
  session.finish();
  RunnerConfig cfg = session.config();
  cfg.program = program;
  if (unwrapped) cfg.wrap.clear();
  session.configure(cfg, suite.number);
  CallContext calls{session, {}};
  try {
    run.source = read_lab_source(session.runner().hello().source);
    const CheckResult r = suite.run(calls, c, seed);
    if (r.status != Status::Pass)
      run.figures.problem = whose + " did not pass at the profiled size (" + c.shape.text() + "): " + r.message;
  } catch (const std::exception& e) {
    run.figures.problem = whose + " could not be profiled: " + e.what();
  }
  session.finish();
  for (const auto& note : profile_notes_among(calls.record.runner_notes)) {
    // CUDALAB_PROFILE_DEBUG=1: the raw notes on stderr, for whoever changes the emulator's counting.
    if (std::getenv("CUDALAB_PROFILE_DEBUG")) std::fprintf(stderr, "%s\n", note.c_str());
    if (auto k = parse_profile_note(note)) run.figures.kernels.push_back(*k);
  }
  if (run.figures.problem.empty() && run.figures.kernels.empty())
    run.figures.problem = whose + " reported no counts (was it built with PROFILE=1?)";
  return run;
}

}  // namespace

ProfileSection run_profile(RunnerSession& session, const LabSuite& suite, const Options& opt, uint64_t seed) {
  ProfileSection p;
  p.shape = opt.profile_size ? Shape{*opt.profile_size} : profile_shape(suite.number);
  if (!suite.reject_shape || suite.reject_shape(p.shape).empty()) {
    const CheckCase c{"profile", "why it is slow", p.shape};
    const OneRun yours = profile_once(session, suite, opt.profile_runner, c, seed, "your code");
    const OneRun reference = profile_once(session, suite, opt.profile_reference, c, seed, "the reference solution",
                                          opt.profile_reference_unwrapped);
    p.problem = !yours.figures.problem.empty() ? yours.figures.problem : reference.figures.problem;
    if (p.problem.empty()) {
      ProfileInputs in;
      in.yours = &yours.figures;
      in.reference = &reference.figures;
      in.elements = double(p.shape.elements());
      in.multiply_adds = profile_multiply_adds(suite.number, p.shape);
      in.your_place = [&](const std::string& place) {
        const size_t colon = place.find_last_of(':');
        if (colon == std::string::npos || colon + 1 >= place.size() || colon + 1 + 9 < place.size() ||
            place.find_first_not_of("0123456789", colon + 1) != std::string::npos)
          return std::string();
        return checked_place(place.substr(0, colon), uint32_t(std::stoul(place.substr(colon + 1))), yours.source);
      };
      p.digest = digest_profile(in);
      p.ran = true;
    }
  } else {
    p.problem = "the profiled size " + p.shape.text() + " does not fit this lab: " + suite.reject_shape(p.shape);
  }
  return p;
}

namespace {
// A sentence on lines of at most `width` characters: the first after `indent`, the rest two
// spaces further in (so that each sentence's start shows, to a reader and to a script).
void print_wrapped(std::string& out, const std::string& text, const std::string& indent, size_t width) {
  std::string line;
  size_t from = 0, printed = 0;
  while (from < text.size()) {
    size_t to = text.find(' ', from);
    if (to == std::string::npos) to = text.size();
    const std::string word = text.substr(from, to - from);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += (printed++ ? indent + "  " : indent) + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    from = to + 1;
  }
  if (!line.empty()) out += (printed ? indent + "  " : indent) + line + "\n";
}
}  // namespace

std::string profile_body(const ProfileSection& p) {
  std::string out;
  if (!p.ran) return "not profiled: " + p.problem + "\n";
  for (const auto& s : p.digest.sentences) print_wrapped(out, s, "", 96);
  char line[512];
  std::snprintf(line, sizeof line, "\n%-38s %-14s %s\n", "figure", "yours", "reference");
  out += line;
  for (const auto& r : p.digest.table) {
    std::snprintf(line, sizeof line, "%-38s %-14s %s\n", r.figure.c_str(), r.yours.c_str(), r.reference.c_str());
    out += line;
  }
  return out;
}

void print_profile(std::FILE* out, const ProfileSection& p) {
  if (p.shape.dims.empty())
    std::fprintf(out, "\n  why it is slow (PROFILE=1)\n");
  else
    std::fprintf(out, "\n  why it is slow (PROFILE=1, size %s)\n", p.shape.text().c_str());
  // The body, each line four spaces in (an empty line stays empty).
  const std::string body = profile_body(p);
  size_t from = 0;
  while (from < body.size()) {
    size_t to = body.find('\n', from);
    if (to == std::string::npos) to = body.size();
    const std::string line = body.substr(from, to - from);
    std::fprintf(out, "%s%s\n", line.empty() ? "" : "    ", line.c_str());
    from = to + 1;
  }
}

}  // namespace cudalab
