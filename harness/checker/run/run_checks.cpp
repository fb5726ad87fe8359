#include "run_checks.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "checker_session.h"
#include "checker/types/options.h"
#include "checker/judging/run_verdicts.h"
#include "checker/judging/schedule_probe.h"
#include "checker/types/suite.h"
#include "checker/calls/lab_call.h"
#include "checker/calls/printable.h"
#include "checker/calls/runner_session.h"
#include "checker/calls/runner_words.h"
#include "checker/calls/sanitizer_digest.h"
#include "checker/report/report_channel.h"
#include "checker/report/run_record.h"
#include "checker/profile/profile_run.h"
#include "checker/report/terminal_report.h"
#include "checker/timing/gpu_gate.h"
#include "checker/timing/timing_trace.h"
#include "wire/random.h"
#ifndef CUDALAB_BACKEND_CPU
#include "checker/gpu/timer.h"
#endif

namespace cudalab {
namespace {

bool cpu_backend() {
#ifdef CUDALAB_BACKEND_CPU
  return true;
#else
  return false;
#endif
}

std::string dims_text(const uint32_t d[3]) {
  std::string t = std::to_string(d[0]);
  if (d[1] != 1 || d[2] != 1)
    t = "(" + t + ", " + std::to_string(d[1]) + (d[2] != 1 ? ", " + std::to_string(d[2]) : "") + ")";
  return t;
}

// "2 launches: reduce_level_kernel<<<1025, 256>>>, reduce_level_kernel<<<2, 256>>>"
std::string launch_summary(const std::vector<wire::Launch>& launches, uint64_t total) {
  if (total == 0) return "";
  std::string s = std::to_string(total) + (total == 1 ? " launch: " : " launches: ");
  for (size_t i = 0; i < launches.size() && i < 4; ++i) {
    const auto& l = launches[i];
    s += (i ? ", " : "") + printable(l.kernel) + "<<<" + dims_text(l.grid) + ", " + dims_text(l.block) +
         (l.shared_bytes ? ", " + std::to_string(l.shared_bytes) : "") + ">>>";
  }
  if (total > 4) s += ", ...";
  return s;
}

// The cases this run executes: the suite's table, one --only case, or one --size case.
std::vector<CheckCase> select_cases(const LabSuite& suite, const Options& opt) {
  if (opt.timing_only) return {};
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
  if (opt.largest)
    cases.erase(std::remove_if(cases.begin(), cases.end(),
                               [&](const CheckCase& c) { return c.shape.elements() > opt.largest; }),
                cases.end());
  if (!opt.size && opt.only.empty()) {
    cases.push_back(barriers_case());
    cases.push_back(races_case());
  }
  return cases;
}

// The checks the CPU backend never runs, whatever --all says: too large to emulate in the time
// a check has. --list marks them and the report says so before the first check.
bool skipped_here(const CheckCase& c) { return cpu_backend() && c.large; }
size_t count_skipped_here(const std::vector<CheckCase>& cases) {
  return size_t(std::count_if(cases.begin(), cases.end(), skipped_here));
}
std::string skipped_here_note(size_t n) {
  return std::to_string(n) + (n == 1 ? " check is" : " checks are") +
         " too large to emulate on the CPU backend in the time a check has: skipped, with or without "
         "--all (they run on a GPU)";
}

// The check's own result, with its calls' record: the last call's launches and the runner's
// words of every call (an error's too).
CheckResult run_one_untimed(CheckerSession& session, const LabSuite& suite, const CheckCase& c, uint64_t seed,
                            bool& context_lost) {
  CheckResult r;
  if (skipped_here(c)) {
    if (suite.judge_unemulated)
      if (std::optional<CheckResult> judged = suite.judge_unemulated(session.runner.source(), c)) return *judged;
    r.status = Status::Skipped;
    r.cause = Cause::TooLarge;
    r.message = "skipped: too large to emulate on the CPU; runs on a GPU";
    return r;
  }
  CallContext calls{session.runner, {}};
  try {
    r = suite.run(calls, c, derive_seed(seed, c.id.c_str()));
    if (schedule_probe_applies(session.runner, c))
      probe_schedules(calls, session.probe, suite, c, derive_seed(seed, c.id.c_str()), r);
  } catch (const LabCallFailure& f) {
    r = CheckResult{};
    r.status = Status::Error;
    r.cause = f.cause != Cause::None ? f.cause : cause_of(f.kind);
    r.message = f.what();
    r.notes = f.notes;
    if (f.kind == LabCallFailure::Kind::ContextLost) {
      context_lost = true;
      r.notes.push_back("this error breaks the GPU context: the next check runs in a fresh process");
    }
  } catch (const std::exception& e) {
    r = CheckResult{};
    r.status = Status::Error;
    r.cause = Cause::CheckerError;
    r.message = e.what();
  }
  r.launches = launch_summary(calls.record.launches, calls.record.launches_total);
  r.runner_words = calls.record.runner_words;
  return r;
}

// The checks worth leaving out when smaller ones already fail: the CPU backend's `large` ones,
// and any case of 2^24 elements or more (2^30 MACs for a matrix product), which take seconds
// of input generation and reference work while the small ones take milliseconds.
bool expensive(const CheckCase& c) {
  if (c.large) return true;
  if (c.shape.dims.empty()) return false;
  const double work = c.shape.dims.size() == 3 ? double(c.shape.dims[0]) * c.shape.dims[1] * c.shape.dims[2]
                                               : double(c.shape.elements());
  return work >= (c.shape.dims.size() == 3 ? double(size_t(1) << 30) : double(size_t(1) << 24));
}

// Too slow under CHECK=race, where every access of lab code goes through the detector: 2^24
// elements, or 2^28 multiply-adds (a 1000^3 product's shared-memory tiles take 80 s there).
bool slow_under_race_detector(const CheckCase& c) {
  if (c.shape.dims.empty()) return false;
  return c.shape.dims.size() == 3
             ? double(c.shape.dims[0]) * c.shape.dims[1] * c.shape.dims[2] >= double(size_t(1) << 28)
             : double(c.shape.elements()) >= double(size_t(1) << 24);
}

CheckResult run_one(CheckerSession& session, const LabSuite& suite, const CheckCase& c, uint64_t seed,
                    bool& context_lost, std::map<std::string, std::string>& races_told) {
  const auto start = std::chrono::steady_clock::now();
  CheckResult r = run_one_untimed(session, suite, c, seed, context_lost);
  fail_on_race(c.id, r, schedule_probe_applies(session.runner, c), races_told);
  // A suite's own wording of a failure (a histogram's counts, a sum's value) is about values.
  if (r.status == Status::Fail && r.cause == Cause::None) r.cause = Cause::WrongValues;
  if (r.status == Status::Pass) r.cause = Cause::None;
  if (!session.runner_words_allowed) r.runner_words.clear();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// The order checks run in: the suite's, except that the grader's hidden checks come after every
// other (the runner has then seen no hidden input while the visible checks ran); "barriers" and
// "races", verdicts over the others, stay last.
std::vector<size_t> run_order(const std::vector<CheckCase>& cases, const std::vector<std::string>& hidden) {
  auto is_hidden = [&](const CheckCase& c) { return std::find(hidden.begin(), hidden.end(), c.id) != hidden.end(); };
  std::vector<size_t> order;
  for (int pass = 0; pass < 3; ++pass)
    for (size_t i = 0; i < cases.size(); ++i) {
      const int want = verdict_over_run(cases[i]) ? 2 : is_hidden(cases[i]) ? 1 : 0;
      if (want == pass) order.push_back(i);
    }
  return order;
}

TimingReport run_timing(RunnerSession& runner, const Options& opt, const RunRecord& rec, uint64_t seed) {
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
  if (rec.count(Status::Pass) + rec.count(Status::Skipped) != rec.checks.size()) {
    t.status = "skipped";
    t.note = "not timed: fix the failing checks first (the speed of a wrong answer means nothing)";
    return t;
  }
#ifndef CUDALAB_BACKEND_CPU
  try {
    TimingRequest req{runner, seed, opt.size ? std::optional<Shape>(Shape{*opt.size}) : std::nullopt, opt.timing_only,
                      opt.no_baselines};
    timing_trace("waiting for the GPU's gate");
    const GpuGate turn(opt.gpu_gate);  // the runner is up (its hello came): only the timing waits
    timing_trace("the gate is ours");
    t = lab_timing(req);
    timing_trace("timed (%s)", t.status.c_str());
    // The student's runner ends before the gate passes on: the next timing run must find the
    // GPU's memory free (this one's batches took half of it) and no process of this one's
    // winding down beside its measurement.
    if (!runner.end_student_processes() && t.status != "error") {
      t.status = "error";
      t.rows.clear();
      t.note = "timing stopped: a process of your code's outlived SIGKILL";
    }
    timing_trace("the runner has ended; the gate passes on");
  } catch (const std::exception& e) {
    t = TimingReport{};
    t.status = "error";
    t.note = std::string("timing stopped: ") + e.what();
  }
#else
  (void)runner, (void)seed;
#endif
  return t;
}

// CHECK=race/asan: the sanitizer's reports during this check, a line per distinct finding; a
// finding already shown under an earlier check of this run (`first_check`: finding key -> the
// check it was first shown under) points back to it.
void add_sanitizer_findings(const std::string& dir, const std::string& check_id, CheckResult& r,
                            std::map<std::string, std::string>& first_check) {
  for (const auto& f : take_sanitizer_reports(dir)) {
    const std::string count = f.reports > 1 ? " (" + std::to_string(f.reports) + " reports like it)" : "";
    auto [it, fresh] = first_check.emplace(f.key, check_id);
    if (fresh) {
      r.sanitizer.push_back(f.text + count);
      if (first_check.size() == 1) r.sanitizer.push_back("every report in full: " + sanitizer_full_log(dir));
    } else if (r.status != Status::Pass) {  // under a failure, the likely cause; a pass needs no repeat
      r.sanitizer.push_back(f.text.substr(0, f.text.find(':')) + ": the same finding as under check " + it->second +
                            count);
    }
  }
}

// The runner make builds beside this checker: build/<backend>/check/labN serves
// build/<backend>/labs/labN-runner unless --runner names another.
std::string default_runner_path(const std::string& checker) {
  std::string dir = checker.substr(0, checker.find_last_of('/') + 1);
  std::string name = checker.substr(checker.find_last_of('/') + 1);
  if (dir.size() >= 6 && dir.compare(dir.size() - 6, 6, "check/") == 0) dir = dir.substr(0, dir.size() - 6) + "labs/";
  return dir + name + "-runner";
}

// The command line, checked: the options, the cases to run, and whether to stop at once (an exit
// status: usage, --help or --list) instead of running them.
std::optional<int> parse_command_line(const LabSuite& suite, int argc, char** argv, Options& opt,
                                      std::vector<CheckCase>& cases) {
  try {
    opt = parse_options(argc, argv);
    if (opt.help) {
      std::fputs(usage_text(argv[0], suite.number, suite.size_syntax).c_str(), stdout);
      return kAllPassed;
    }
    cases = select_cases(suite, opt);
    if (!opt.schedule.empty()) {
#ifdef CUDALAB_BACKEND_CPU
      const std::string& s = opt.schedule;
      const bool known =
          s == "in-order" || s == "reverse" ||
          (s.rfind("random:", 0) == 0 && s.size() > 7 && s.find_first_not_of("0123456789", 7) == std::string::npos);
      if (!known) throw UsageError{"--schedule '" + opt.schedule + "': use in-order, reverse or random:SEED"};
#else
      throw UsageError{"--schedule changes the CPU backend's thread order; a GPU schedules threads itself"};
#endif
    }
    for (const auto& id : opt.hidden_checks) {
      const bool known =
          id == "barriers" || id == "races" ||
          std::any_of(suite.cases.begin(), suite.cases.end(), [&](const CheckCase& c) { return c.id == id; });
      if (!known)
        throw UsageError{"--hidden-checks: there is no check '" + id + "' in lab " + std::to_string(suite.number)};
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.message.c_str());
    return kUsage;
  }
  if (opt.list) {
    std::vector<CheckCase> all = suite.cases;
    all.push_back(barriers_case());
    all.push_back(races_case());
    for (const auto& c : all)
      std::printf("%-26s %-24s %s%s\n", c.id.c_str(), c.shape.text().c_str(), c.title.c_str(),
                  skipped_here(c) ? "  [the CPU backend skips it: too large to emulate]" : "");
    if (const size_t n = count_skipped_here(all)) std::printf("\n%s\n", skipped_here_note(n).c_str());
    return kAllPassed;
  }
  return std::nullopt;
}

// The kernel runner (the lab file's own process, harness/runner), configured and asked to introduce
// itself: its first words say where kernels run. Returns why it could not start ("" when it did);
// a runner that does not start is every check's error.
std::string start_runner(CheckerSession& session, const LabSuite& suite, const Options& opt, const char* program,
                         RunRecord& rec) {
  const bool hidden_run = !opt.hidden_checks.empty();
  RunnerConfig runner_cfg;
  runner_cfg.program = opt.runner.empty() ? default_runner_path(program) : opt.runner;
  runner_cfg.wrap = opt.runner_wrap;
  runner_cfg.timeout_seconds = opt.check_timeout;
  runner_cfg.schedule = opt.schedule;  // travels in each request: nothing in the runner's environment decides it
  // Off only for a measurement of what the runner calls (tools/measure/runner_syscalls.sh), never when
  // the grader runs the checks.
  const char* filter = std::getenv("CUDALAB_SYSCALL_FILTER");
  runner_cfg.syscall_filter = !(filter && std::string(filter) == "off") || hidden_run || report_channel_open();
  // Every kernel's module loaded (and, for a GPU the build has no code of its own for, compiled
  // from PTX, which reads and writes the driver's cache on disk) when the runner's runtime starts:
  // once its system calls are limited, a module loaded lazily at its first launch could open no file.
  // (And the driver's cache of compiled PTX off: it writes its files later, from a thread of its own.)
  if (runner_cfg.syscall_filter) {
    runner_cfg.extra_env.push_back("CUDA_MODULE_LOADING=EAGER");
    runner_cfg.extra_env.push_back("CUDA_CACHE_DISABLE=1");
  }
  if (!opt.sanitizer_log.empty()) {
    ::mkdir(opt.sanitizer_log.c_str(), 0700);
    take_sanitizer_reports(opt.sanitizer_log);  // an earlier run's, if any
    for (auto& e : sanitizer_log_env(opt.sanitizer_log)) runner_cfg.extra_env.push_back(e);
  }
  session.runner.configure(runner_cfg, suite.number);
  session.runner.set_measured_span_gate(opt.gpu_gate);
  try {
    // A timing run's start-up (its runner's CUDA context and its own) happens outside any other
    // run's measurement (gpu_gate.h).
    GpuStartup starting(opt.gpu_gate);
#ifndef CUDALAB_BACKEND_CPU
    // The checker's own context (its references run on the GPU during the timing) is made while
    // the runner starts, not later under the gate.
    std::jthread context;  // joined however this block is left
    if (!opt.gpu_gate.empty())
      context = std::jthread([] {
        try {
          make_gpu_context();
        } catch (const std::exception&) {  // no usable GPU: the runner's hello says so, and why
        }
      });
#endif
    const wire::Hello& hello = session.runner.runner().hello();
#ifndef CUDALAB_BACKEND_CPU
    if (context.joinable()) context.join();
#endif
    starting.release();
    timing_trace("the runner and the CUDA contexts are up");
    // The lab file: the caller's word when it gives one; else the runner's, but not with hidden
    // checks (the checker would read whatever file the runner named, and say which of its words
    // are in it).
    session.runner.set_source(read_lab_source(!opt.source.empty() ? opt.source
                                              : hidden_run        ? std::string()
                                                                  : hello.source));
    rec.source = !opt.source.empty() ? session.runner.source().shown : printable(hello.source, 200);
    rec.tool = printable(hello.tool, 200);
    session.probe.race_detector = hello.tool.find("(CHECK=race)") != std::string::npos;
    rec.device = hello.device;
    rec.device.name = printable(rec.device.name, 100);
    rec.device.driver_version = printable(rec.device.driver_version, 16);
    rec.device.runtime_version = printable(rec.device.runtime_version, 16);
    if (!rec.device.usable)
      rec.device.problem =
          hidden_run ? std::string("the kernel runner found no usable GPU") : cut_runner_words(rec.device.problem);
    return "";
  } catch (const std::exception& e) {
    rec.device.usable = false;
    rec.device.problem = e.what();
    return e.what();
  }
}

// Every case, not run: there is no usable GPU, or no runner.
void record_not_run(const std::vector<CheckCase>& cases, const std::string& runner_problem, RunRecord& rec,
                    TerminalReport& out) {
  out.line("  " + rec.device.problem);
  out.line("");
  for (const auto& c : cases) {
    CheckResult r;
    r.status = Status::NotRun;
    r.cause = Cause::NoRunner;
    r.message = "not run: " + (runner_problem.empty() ? std::string("no usable GPU") : runner_problem);
    rec.checks.push_back({c, r});
  }
}

// An error that repeats an earlier check's word for word (a kernel that faults at every size)
// points back to the first instead of saying it all again.
void point_back_to_same_error(const std::string& check_id, CheckResult& r, std::string& last_error,
                              std::string& last_error_check) {
  if (r.status == Status::Error && r.message == last_error) {
    r.message = "the same error as check " + last_error_check;
    r.notes.clear();
    r.runner_words.clear();
  } else if (r.status == Status::Error) {
    last_error = r.message;
    last_error_check = check_id;
  } else {
    last_error.clear();
  }
}

// The cases in run order (hidden checks last), each recorded and printed as it finishes; the
// record keeps the suite's order. Returns whether a check lost the GPU context.
bool run_cases(CheckerSession& session, const LabSuite& suite, const Options& opt, const std::vector<CheckCase>& cases,
               RunRecord& rec, TerminalReport& out) {
  bool context_lost = false;
  std::string last_error, last_error_check;  // one message per cause (below)
  // What this run has said in full already, so that a later check points back to it: the
  // sanitizer's findings and the race detector's races, each with the check it was first told under.
  std::map<std::string, std::string> findings_shown, races_told;
  // Fail fast, for a student at a terminal: once a check has failed, the expensive ones are
  // left out (--all runs them). Anything reading a pipe or a file (the grader, the tests)
  // gets every check.
  const bool fail_fast = !opt.all && isatty(STDOUT_FILENO);
  const bool race_run = rec.tool.find("(CHECK=race)") != std::string::npos;
  size_t left_out = 0;
  if (const size_t n = count_skipped_here(cases)) {
    out.line("  " + skipped_here_note(n));
    out.line("");
  }
  std::vector<std::optional<CheckOutcome>> in_place(cases.size());
  for (size_t index : run_order(cases, opt.hidden_checks)) {
    const CheckCase& c = cases[index];
    CheckResult r;
    bool shown = true;
    // (A check the CPU backend skips anyway is not "left out": --all would not run it.)
    if (fail_fast && expensive(c) && !skipped_here(c) &&
        rec.count(Status::Fail) + rec.count(Status::Error) + rec.count(Status::NotRun) > 0) {
      r.status = Status::Skipped;
      r.cause = Cause::LeftOut;
      r.message = "left out: the smaller checks fail; --all runs them";
      ++left_out;
      shown = false;
    } else if (race_run && slow_under_race_detector(c) && !c.large && !opt.all && opt.only.empty() && !opt.size) {
      // Under CHECK=race every access goes through the detector (5 to 8 times slower, 8 bytes of
      // shadow per byte touched): the large sizes, whose races the smaller ones show too, wait
      // for a plain run unless asked for.
      r.status = Status::Skipped;
      r.cause = Cause::LeftOut;
      r.message = "left out under CHECK=race: the race detector makes this size slow (make lab" +
                  std::to_string(suite.number) + " runs it; ARGS=--all runs it here)";
    } else {
      r = c.id == "barriers" ? barriers_verdict(rec.checks, opt.hidden_checks)
          : c.id == "races"  ? races_verdict(rec.checks, opt.hidden_checks, suite.number, race_run)
                             : run_one(session, suite, c, rec.seed, context_lost, races_told);
      point_back_to_same_error(c.id, r, last_error, last_error_check);
      // The sanitizer's reports are files the runner's process wrote: its words.
      if (!opt.sanitizer_log.empty() && session.runner_words_allowed)
        add_sanitizer_findings(opt.sanitizer_log, c.id, r, findings_shown);
    }
    rec.checks.push_back({c, r});
    in_place[index] = rec.checks.back();
    if (shown) out.check(rec.checks.back());
  }
  rec.checks.clear();
  for (auto& o : in_place)
    if (o) rec.checks.push_back(std::move(*o));
  if (left_out)
    out.line("  " + std::to_string(left_out) + (left_out == 1 ? " larger check" : " larger checks") +
             " left out: the smaller checks fail (ARGS=--all runs them)");
  return context_lost;
}

// The JSON report, to --json and to the grader's verdict channel; then the exit status.
int report_and_exit_status(const Options& opt, const RunRecord& rec, const std::string& runner_problem,
                           bool context_lost) {
  std::string json = to_json(rec);
  if (!opt.json_path.empty()) {
    std::ofstream f(opt.json_path);
    if (!(f << json << "\n")) std::fprintf(stderr, "could not write the JSON report to %s\n", opt.json_path.c_str());
  }
  report_channel_send(json);
  if (!rec.device.usable) return runner_problem.empty() ? kNoDevice : kCheckFailed;
  if (context_lost) return kContextLost;
  if (rec.timing.status == "wrong_answer") return kCheckFailed;
  return rec.count(Status::Pass) + rec.count(Status::Skipped) == rec.checks.size() ? kAllPassed : kCheckFailed;
}

}  // namespace

// The run in named phases: the command line, the runner, the checks, the timing, the report.
int run_lab(CheckerSession& session, int argc, char** argv) {
  const LabSuite& suite = lab_suite();
  Options opt;
  std::vector<CheckCase> cases;
  if (auto status = parse_command_line(suite, argc, argv, opt, cases)) return *status;
  set_timing_trace(opt.timing_trace);
  // With a hidden check in the run, the runner's own words stay out of the report entirely.
  const bool hidden_run = !opt.hidden_checks.empty();
  session.runner_words_allowed = !hidden_run;

  RunRecord rec;
  rec.lab = suite.number;
  rec.title = suite.title;
  rec.backend = cpu_backend() ? "cpu" : "cuda";
  rec.program = argv[0];
  rec.seed = opt.seed ? *opt.seed : fresh_seed();
  const std::string runner_problem = start_runner(session, suite, opt, argv[0], rec);

  size_t id_width = 10, size_width = 10;
  for (const auto& c : cases) {
    id_width = std::max(id_width, c.id.size());
    size_width = std::max(size_width, c.shape.text().size() + 2);
  }
  TerminalReport out(stdout, id_width, size_width);
  out.header(rec);
  bool context_lost = false;
  if (!rec.device.usable)
    record_not_run(cases, runner_problem, rec, out);
  else
    context_lost = run_cases(session, suite, opt, cases, rec, out);
  out.summary(rec);
  const auto timing_start = std::chrono::steady_clock::now();
  // A runner that served hidden checks does not time: a fresh one has seen none of their inputs.
  if (hidden_run) session.runner.discard();
  rec.timing = run_timing(session.runner, opt, rec, rec.seed);
  rec.timing.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - timing_start).count();
  out.timing(rec.timing);
  session.runner.finish();
  // PROFILE=1: why it is slow, after the verdict (advice only: nothing below changes the exit status).
  if (!opt.profile_runner.empty() && !opt.profile_reference.empty()) {
    ProfileSection profile;
    if (rec.count(Status::Pass) + rec.count(Status::Skipped) == rec.checks.size() && rec.device.usable)
      profile = run_profile(session.runner, suite, opt, rec.seed);
    else
      profile.problem = "a check did not pass, and speed comes after a right answer";
    print_profile(stdout, profile);
    rec.profile.asked = true;
    rec.profile.ran = profile.ran;
    rec.profile.size = profile.shape.dims.empty() ? "" : profile.shape.text();
    rec.profile.problem = profile.problem;
    rec.profile.limiter = profile.digest.limiter;
    rec.profile.first_sentence = profile.digest.sentences.empty() ? "" : profile.digest.sentences.front();
    rec.profile.text = profile_body(profile);
  }
  return report_and_exit_status(opt, rec, runner_problem, context_lost);
}

}  // namespace cudalab
