#include "runner.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "cuda_errors.h"
#include "cudalab/launch_check.h"  // declares note_source_file, which lab files call
#include "options.h"
#include "random.h"
#include "report_channel.h"
#include "run_record.h"
#include "suite.h"
#include "terminal_report.h"

namespace cudalab {

// Recorded by launch_check.h when the lab file is compiled with CUDALAB_SOURCE_FILE.
static const char* g_source_file = "";
const char* note_source_file(const char* path) { return g_source_file = path; }

namespace {

bool cpu_backend() {
#ifdef CUDALAB_BACKEND_CPU
  return true;
#else
  return false;
#endif
}

// The cases this run executes: the suite's table, one --only case, or one --size case.
std::vector<CheckCase> select_cases(const LabSuite& suite, const Options& opt) {
  std::vector<CheckCase> cases = suite.cases;
  if (opt.size) {
    Shape shape{*opt.size};
    if (shape.dims.size() != suite.size_dims)
      throw UsageError{"lab " + std::to_string(suite.number) + " takes --size " + suite.size_syntax};
    if (std::string why = suite.reject_shape ? suite.reject_shape(shape) : ""; !why.empty())
      throw UsageError{"--size " + shape.text() + ": " + why};
    cases = {CheckCase{"size", "the size you asked for with --size", shape, false}};
  }
  if (!opt.only.empty()) {
    auto it = std::find_if(cases.begin(), cases.end(), [&](const CheckCase& c) { return c.id == opt.only; });
    if (it == cases.end()) {
      std::string ids;
      for (const auto& c : suite.cases) ids += (ids.empty() ? "" : ", ") + c.id;
      throw UsageError{"there is no check '" + opt.only + "' in lab " + std::to_string(suite.number) +
                       "; the checks are: " + ids};
    }
    cases = {*it};
  }
  return cases;
}

CheckResult run_one(const LabSuite& suite, const CheckCase& c, uint64_t seed, bool& context_lost,
                    std::string& lost_reason) {
  CheckResult r;
  if (context_lost) {
    r.status = Status::NotRun;
    r.message = "not run: " + lost_reason;
    return r;
  }
  if (cpu_backend() && c.large) {
    r.status = Status::Skipped;
    r.message = "too large to emulate quickly on the CPU; runs on a GPU";
    return r;
  }
  set_sync_after_launch(true);
  try {
    r = suite.run(c, derive_seed(seed, c.id.c_str()));
  } catch (const CudaFailure& f) {
    r = CheckResult{};
    r.status = Status::Error;
    r.message = f.what();
    if (f.context_lost) {
      context_lost = true;
      lost_reason = "the GPU context was lost in check '" + c.id + "'; run this check alone with --only " + c.id;
      r.notes.push_back("this error breaks the GPU context: the remaining checks cannot run in this process");
    }
  } catch (const std::exception& e) {
    r = CheckResult{};
    r.status = Status::Error;
    r.message = e.what();
  }
  return r;
}

TimingReport run_timing(const Options& opt, const RunRecord& rec, uint64_t seed, bool context_lost) {
  TimingReport t;
  if (!opt.timing) {
    t.status = "skipped";
    t.note = "not timed (--no-timing)";
    return t;
  }
  if (cpu_backend()) {
    t.status = "emulated";
    t.note = "emulated: no speedup measured (the CPU backend checks correctness; time your code on a GPU)";
    return t;
  }
  // Say why, for each reason: "fix the failing checks" is no help when no check could run.
  if (!rec.device.usable) {
    t.status = "skipped";
    t.note = "not timed: there is no usable GPU (see the message above)";
    return t;
  }
  if (context_lost) {
    t.status = "skipped";
    t.note = "not timed: a check broke the GPU context, so nothing more can run in this process";
    return t;
  }
  if (rec.count(Status::Pass) + rec.count(Status::Skipped) != rec.checks.size()) {
    t.status = "skipped";
    t.note = "not timed: fix the failing checks first (the speed of a wrong answer means nothing)";
    return t;
  }
#ifndef CUDALAB_BACKEND_CPU
  set_sync_after_launch(false);
  try {
    TimingRequest req{seed, opt.size ? std::optional<Shape>(Shape{*opt.size}) : std::nullopt};
    t = lab_timing(req);
  } catch (const std::exception& e) {
    t = TimingReport{};
    t.status = "error";
    t.note = std::string("timing stopped: ") + e.what();
  }
  set_sync_after_launch(true);
#endif
  return t;
}

}  // namespace

int run_lab(int argc, char** argv) {
  const LabSuite& suite = lab_suite();
  Options opt;
  std::vector<CheckCase> cases;
  try {
    opt = parse_options(argc, argv);
    if (opt.help) {
      std::fputs(usage_text(argv[0], suite.number, suite.size_syntax).c_str(), stdout);
      return kAllPassed;
    }
    cases = select_cases(suite, opt);
    if (!opt.schedule.empty()) {
#ifdef CUDALAB_BACKEND_CPU
      if (!cudalab_cpu::set_schedule(opt.schedule.c_str()))
        throw UsageError{"--schedule '" + opt.schedule + "': use in-order, reverse or random:SEED"};
#else
      throw UsageError{"--schedule changes the CPU backend's thread order; a GPU schedules threads itself"};
#endif
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.message.c_str());
    return kUsage;
  }
  if (opt.list) {
    for (const auto& c : suite.cases) std::printf("%-26s %-24s %s\n", c.id.c_str(), c.shape.text().c_str(), c.title.c_str());
    return kAllPassed;
  }

  RunRecord rec;
  rec.lab = suite.number;
  rec.title = suite.title;
  rec.backend = backend_name();
  rec.program = argv[0];
  rec.source = g_source_file;
  rec.seed = opt.seed ? *opt.seed : fresh_seed();
  rec.device = query_device();

  size_t id_width = 10, size_width = 10;
  for (const auto& c : cases) {
    id_width = std::max(id_width, c.id.size());
    size_width = std::max(size_width, c.shape.text().size() + 2);
  }
  TerminalReport out(stdout, id_width, size_width);
  out.header(rec);

  bool context_lost = false;
  std::string lost_reason;
  if (!rec.device.usable) {
    context_lost = true;
    lost_reason = "no usable GPU";
    out.line("  " + rec.device.problem);
    out.line("");
  }
  for (const auto& c : cases) {
    rec.checks.push_back({c, run_one(suite, c, rec.seed, context_lost, lost_reason)});
    out.check(rec.checks.back());
  }
  out.summary(rec);
  rec.timing = run_timing(opt, rec, rec.seed, context_lost);
  out.timing(rec.timing);

  std::string json = to_json(rec);
  if (!opt.json_path.empty()) {
    std::ofstream f(opt.json_path);
    if (!(f << json << "\n")) std::fprintf(stderr, "could not write the JSON report to %s\n", opt.json_path.c_str());
  }
  report_channel_send(json);

  if (!rec.device.usable) return kNoDevice;
  if (context_lost) return kContextLost;
  if (rec.timing.status == "wrong_answer") return kCheckFailed;
  return rec.count(Status::Pass) + rec.count(Status::Skipped) == rec.checks.size() ? kAllPassed : kCheckFailed;
}

}  // namespace cudalab
