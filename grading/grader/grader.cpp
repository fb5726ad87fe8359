#include "grader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>

#include "class_files.h"
#include "discover.h"
#include "emulator_meeting.h"
#include "build_submission.h"
#include "grade_student.h"
#include "profile_run.h"
#include "student_jail.h"
#include "timing_queue.h"
#include "progress.h"
#include "setup.h"
#include "results/emulator_verdicts.h"
#include "results/lab_report.h"
#include "results/scoring.h"
#include "results/store.h"
#include "safe_io/files.h"
#include "results/writers.h"

namespace grading {
namespace {

std::string command_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  return out;
}

// GPUs to use: those CUDA_VISIBLE_DEVICES names, else every one nvidia-smi lists.
std::vector<std::string> find_gpus() {
  std::vector<std::string> gpus;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
    std::string s = v;
    for (size_t at = 0; at <= s.size();) {
      size_t comma = s.find(',', at);
      if (comma == std::string::npos) comma = s.size();
      if (comma > at) gpus.push_back(s.substr(at, comma - at));
      at = comma + 1;
    }
    return gpus;
  }
  std::string out = command_output("nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null");
  for (size_t at = 0; at < out.size();) {
    size_t nl = out.find('\n', at);
    if (nl == std::string::npos) nl = out.size();
    std::string idx = out.substr(at, nl - at);
    while (!idx.empty() && isspace(static_cast<unsigned char>(idx.back()))) idx.pop_back();
    if (!idx.empty()) gpus.push_back(idx);
    at = nl + 1;
  }
  return gpus;
}

// The lab's file name, from solutions/ (the reference) or, where no solution is shipped (a
// Gradescope autograder), from labs/ (the stub students start from). "" when neither has it.
std::string find_lab_file(const fs::path& folder, int lab) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string n = it->path().filename().string();
    if (n.rfind("lab" + std::to_string(lab) + "_", 0) == 0 && it->path().extension() == ".cu") names.push_back(n);
  }
  if (names.size() > 1) throw SetupError("expected one " + folder.string() + "/lab" + std::to_string(lab) + "_*.cu");
  return names.empty() ? "" : names[0];
}

// A queue that closes: pop() returns false once closed and empty.
template <class T>
class Queue {
 public:
  void push(T v) {
    {
      std::lock_guard<std::mutex> l(m_);
      q_.push_back(std::move(v));
    }
    cv_.notify_one();
  }
  bool pop(T& v) {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return false;
    v = std::move(q_.front());
    q_.pop_front();
    return true;
  }
  void close() {
    {
      std::lock_guard<std::mutex> l(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<T> q_;
  bool closed_ = false;
};

// How many checker runs share one GPU while checking (timing always has it alone). Each run
// is a checker (the references, on the host, multi-threaded) and a runner (the kernels): a
// run spends most of its time starting (a jail, a CUDA context) and on the host, so several
// per GPU keep it busy; bounded by the cores (two each: the builds run beside them) and by
// memory (each may hold the rubric's limit twice: its inputs in the checker and the runner).
// The CPU backend's emulator already uses every core: one at a time there.
unsigned parallel_run_slots(const GradingContext& ctx) {
  if (ctx.backend != "cuda") return 1;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  uint64_t available_mb = 0;
  if (auto meminfo = read_file("/proc/meminfo", 1 << 16)) {
    const size_t at = meminfo->find("MemAvailable:");
    if (at != std::string::npos) available_mb = std::strtoull(meminfo->c_str() + at + 13, nullptr, 10) / 1024;
  }
  const uint64_t by_memory = available_mb / std::max<uint64_t>(1, 2 * ctx.rubric.limits.memory_mb);
  return unsigned(std::clamp<uint64_t>(std::min<uint64_t>(cores / 2, by_memory), 1, 8));
}

// The rubric must name real checks: a misspelt id would score or hide nothing, silently.
void check_rubric_ids(const Rubric& rubric, const std::vector<CheckOutcome>& checks) {
  std::vector<std::string> ids;
  for (const auto& c : checks) ids.push_back(c.id);
  const auto unknown = rubric.unknown_checks(ids);
  if (unknown.empty()) return;
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  throw SetupError(rubric.path + " names checks that lab " + std::to_string(rubric.lab) + " does not have: " +
                   join(unknown) + " (under [checks.points] or in checks.hidden). Its checks are: " + join(ids) + ".");
}

std::string outcome_line(const StudentResult& r, const Rubric& rubric) {
  Score s = score(r, rubric);
  std::string line = format_points(s.total) + "/" + format_points(s.maximum) + " (" + r.verdict;
  if (r.verdict != kGraded) line += ": " + r.reason.substr(0, 70);
  return line + ")";
}

// Where the grader's own files are: the checkout that holds this program
// (build/grading/cudalab-grade), so that it grades from any folder; "" when it is in none.
fs::path own_checkout() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path repo = exe.parent_path().parent_path().parent_path();
  if (fs::exists(repo / "Makefile", ec) && fs::is_directory(repo / "harness", ec) &&
      fs::is_directory(repo / "grading", ec))
    return repo;
  return {};
}

// The jail built beside this program (make builds both together), else the checkout's.
std::string find_jail(const fs::path& repo) {
  std::error_code ec;
  const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "cudalab-jail";
  if (!ec && fs::exists(beside, ec)) return beside.string();
  return (repo / "build/grading/cudalab-jail").string();
}

// Everything one run knows before it grades anyone.
struct RunSetup {
  GradingContext ctx;
  std::vector<std::string> gpus, run_slots;  // run_slots: the GPUs, or one "" on the CPU
  bool have_solution = false;
  fs::path grades;  // GRADES/labN
  LabInfo info;
  unsigned per_slot = 1;  // checker runs at once per GPU
  std::optional<ShippedStub> stub;
  std::optional<Built> reference;  // the solution's build, for the anchor runs (GPU only)
};

// The checkout, the lab's file name, the rubric, the backend and its GPUs, the jail, and the
// work and grades folders.
// A jailed build sees the jail's own PATH: it is handed nvcc by absolute path, and the
// toolkit's folder (often /usr/local/cuda, sometimes /opt) is part of its view. "" when none.
std::string find_nvcc(const std::string& path_env) {
  for (size_t b = 0, e; b <= path_env.size(); b = e + 1) {
    e = path_env.find(':', b);
    if (e == std::string::npos) e = path_env.size();
    const fs::path candidate = fs::path(path_env.substr(b, e - b)) / "nvcc";
    std::error_code ec;
    if (!candidate.parent_path().empty() && fs::exists(candidate, ec)) return fs::canonical(candidate, ec).string();
  }
  return "";
}

RunSetup prepare_run(Config& cfg) {
  if (cfg.repo.empty()) cfg.repo = own_checkout();
  if (cfg.repo.empty()) cfg.repo = ".";
  cfg.repo = fs::absolute(cfg.repo).lexically_normal();
  if (!cfg.repo.has_filename()) cfg.repo = cfg.repo.parent_path();  // "/x/" -> "/x"
  if (cfg.rubric.empty()) cfg.rubric = cfg.repo / "grading" / "rubrics" / ("lab" + std::to_string(cfg.lab) + ".toml");
  if (cfg.work.empty()) cfg.work = cfg.repo / "build" / "grading" / ("lab" + std::to_string(cfg.lab));
  if (!fs::is_directory(cfg.submissions)) throw SetupError("no folder of submissions at " + cfg.submissions.string());
  if (!fs::exists(cfg.repo / "Makefile") || !fs::is_directory(cfg.repo / "harness"))
    throw SetupError(cfg.repo.string() + " is not a cudalab checkout (no Makefile and harness/ there): give --repo");

  RunSetup run;
  run.grades = fs::absolute(cfg.grades) / ("lab" + std::to_string(cfg.lab));
  GradingContext& ctx = run.ctx;
  ctx.repo = cfg.repo;
  ctx.work = fs::absolute(cfg.work);
  ctx.lab = cfg.lab;
  // The reference: the solution where there is one; else (Gradescope ships none) the lab's
  // stub gives the list of checks, and nothing is compared against a reference time.
  ctx.lab_file_name = find_lab_file(cfg.repo / "solutions", cfg.lab);
  run.have_solution = !ctx.lab_file_name.empty();
  if (!run.have_solution) ctx.lab_file_name = find_lab_file(cfg.repo / "labs", cfg.lab);
  if (ctx.lab_file_name.empty())
    throw SetupError("no solutions/lab" + std::to_string(cfg.lab) + "_*.cu nor labs/lab" + std::to_string(cfg.lab) +
                     "_*.cu in " + cfg.repo.string());
  ctx.rubric = load_rubric(cfg.rubric);
  if (ctx.rubric.lab != cfg.lab)
    throw SetupError(cfg.rubric.string() + " is the rubric of lab " + std::to_string(ctx.rubric.lab));
  run.info = LabInfo{cfg.lab, ""};

  if (cfg.backend == "auto" || cfg.backend == "cuda") run.gpus = find_gpus();
  if (cfg.backend == "cuda" && run.gpus.empty()) throw SetupError("BACKEND=cuda, but no GPU answers here");
  ctx.backend = run.gpus.empty() ? "cpu" : "cuda";
  if (cfg.backend == "cpu") {
    ctx.backend = "cpu";
    run.gpus.clear();
  }
  run.run_slots = ctx.backend == "cuda" ? run.gpus : std::vector<std::string>{""};

  ctx.path_env = std::getenv("PATH") ? std::getenv("PATH") : "/usr/local/bin:/usr/bin:/bin";
  if (ctx.backend == "cuda") ctx.nvcc = find_nvcc(ctx.path_env);
  if (const char* l = std::getenv("LD_LIBRARY_PATH")) ctx.ld_library_path = l;
  // Libraries carried beside the checkout (.carry/deps on a host that lacks Boost.Context):
  // every build, jailed or not, is given the same search paths the grader was.
  for (const char* name : {"CPATH", "LIBRARY_PATH"})
    if (const char* v = std::getenv(name); v && *v) ctx.build_env.push_back(std::string(name) + "=" + v);
  // "auto" is settled by the reference's report (set_reference): ready for it until then.
  ctx.emulator.enabled = cfg.emulator_verdicts != "never";
  ctx.build_timeout = cfg.build_timeout.value_or(ctx.rubric.limits.build_seconds);
  ctx.run_timeout = cfg.run_timeout.value_or(ctx.rubric.limits.run_seconds);

  ctx.profile.asked = cfg.profile;
  // The profile compares with the reference solution: a grader without one (Gradescope's) has none.
  if (ctx.profile.asked && !run.have_solution)
    ctx.profile.problem = "this grader has no reference solution to compare your kernels with";
  ctx.timing_trace = cfg.timing_trace;
  if (ctx.timing_trace) {  // this run's steps only
    std::error_code ec;
    fs::remove(ctx.work / "timing-trace.log", ec);
  }
  if (geteuid() == 0 && cfg.isolate) {
    ctx.jailed = true;
    ctx.jail_program = find_jail(cfg.repo);
    if (!fs::exists(ctx.jail_program))
      throw SetupError("no " + ctx.jail_program + ": make grader builds it beside cudalab-grade");
    ctx.uid_base = cfg.uid_base;
    ctx.allow_degraded = cfg.allow_degraded;
  } else if (cfg.isolate) {
    std::cerr << "grader: not running as root, so submissions run as you, with network access, and could write "
                 "wherever you can (see grading/README.md)\n";
  }
  fs::create_directories(ctx.work);
  ::chmod(ctx.work.c_str(), 0711);
  // Grades are for the instructor alone (the files in them are 0600 too). Nothing else
  // needs them: submissions run as another user, and Gradescope's script runs as root.
  fs::create_directories(run.grades / "students");
  ::chmod(run.grades.c_str(), 0700);
  ::chmod((run.grades / "students").c_str(), 0700);
  run.stub = shipped_stub(cfg.repo, ctx.lab_file_name);
  return run;
}

// The course built (the checker, the harness a student's build needs), then the reference
// taken through a student's path (setup.h): the list of checks, the reference's times, and
// the per-check limit that follows from them.
void set_reference(RunSetup& run, const Config& cfg) {
  GradingContext& ctx = run.ctx;
  std::cerr << "grader: lab " << cfg.lab << " on the " << (ctx.backend == "cuda" ? "GPU" : "CPU backend")
            << (run.gpus.empty() ? "" : " (" + std::to_string(run.gpus.size()) + " GPU(s))")
            << "; building the checker and the "
            << (run.have_solution ? "reference solution" : "lab's stub (no solution here)") << "\n";
  {
    PhaseTimer step(ctx.clock, "setup: course build");
    build_course(ctx);
  }
  PhaseTimer step(ctx.clock, "setup: reference");
  fs::path source = cfg.repo / "solutions" / ctx.lab_file_name;
  std::optional<PrivateTempDir> stub_copy;
  if (!run.have_solution) {
    if (!run.stub) throw SetupError("no labs/" + ctx.lab_file_name + " to take the list of checks from");
    stub_copy.emplace("cudalab-shipped-stub");
    source = stub_copy->path() / ctx.lab_file_name;
    write_file_atomic(source, run.stub->text);
  }
  ReferenceFacts ref = prove_reference(ctx, source, run.have_solution, run.run_slots);
  ctx.reference_checks = ref.checks;
  ctx.reference_ms = ref.ms;
  ctx.reference_naive_ms = ref.naive_ms;
  if (ctx.backend == "cuda") run.reference = ref.built;
  run.info.title = ref.title;
  check_rubric_ids(ctx.rubric, ctx.reference_checks);
  // One check gets a few times what the whole reference run needed, within the rubric: a
  // hung check costs this much, and the next check gets a fresh runner.
  // Runs that share a GPU (and the host's cores) take longer than the reference did alone:
  // the limit grows with them, so that no correct student's check is cut short by the load.
  run.per_slot = cfg.parallel_runs ? cfg.parallel_runs : parallel_run_slots(ctx);
  ctx.check_timeout = cfg.check_timeout.value_or(
      std::min(ctx.rubric.limits.check_seconds * run.per_slot, (10 + 3 * ref.seconds) * run.per_slot));
  // The emulator's checks, by the same rule from its own run of the reference; none to take
  // (a lab with no emulator-judged check): no CPU build for anyone. "auto" on the CPU backend:
  // only when its own run leaves one unjudged (races: the plain build has no race detector).
  const bool wanted = cfg.emulator_verdicts == "always" || ctx.backend == "cuda" || ref.unjudged_here;
  ctx.emulator.enabled = ctx.emulator.enabled && wanted && has_emulator_checks(ctx.reference_checks);
  ctx.emulator.check_timeout = cfg.check_timeout.value_or(
      std::min(ctx.rubric.limits.check_seconds * run.per_slot, (10 + 3 * ref.emulator_seconds) * run.per_slot));
}

// Who is graded now, and who keeps a saved result (the same file on the same backend).
struct StudentPlan {
  Discovery found;
  std::vector<Submission> todo;
  std::vector<StudentResult> kept;
};

StudentPlan plan_students(const RunSetup& run, const Config& cfg) {
  StudentPlan plan;
  plan.found = discover(cfg.submissions, DiscoverOptions{cfg.lab, run.ctx.lab_file_name, cfg.student_name});
  auto existing = load_results(run.grades);
  for (size_t i = 0; i < plan.found.submissions.size(); ++i) {
    const Submission& s = plan.found.submissions[i];
    if (cfg.shard_count > 1 && i % cfg.shard_count != cfg.shard_index) continue;  // another task's share
    auto it = existing.find(s.student);
    if (!cfg.force && it != existing.end() && it->second.key == submission_key(s, run.ctx.backend))
      plan.kept.push_back(it->second);
    else
      plan.todo.push_back(s);
  }
  std::cerr << "grader: " << plan.found.submissions.size() << " submissions"
            << (cfg.shard_count > 1 ? " (this is share " + std::to_string(cfg.shard_index) + " of 0.." +
                                          std::to_string(cfg.shard_count - 1) + ")"
                                    : "")
            << ", " << plan.todo.size() << " to grade"
            << (plan.kept.empty() ? "" : ", " + std::to_string(plan.kept.size()) + " already graded") << "\n";
  return plan;
}

// The saved results kept, scored again: the rubric may have changed since.
std::map<std::string, StudentResult> rescore_kept(const RunSetup& run, const StudentPlan& plan) {
  std::map<std::string, StudentResult> results;
  for (const StudentResult& r : plan.kept) {
    results[r.student] = r;
    try {
      save_derived(run.grades, r, run.ctx.rubric, run.info);
    } catch (const std::exception& e) {
      std::cerr << "grader: could not rewrite the feedback of " << r.student << ": " << e.what() << "\n";
    }
  }
  return results;
}

// The shipped stub, kept in the work folder for the similarity report (its code is the
// handed-out boilerplate every submission shares): the path, or "" when there is none.
std::string keep_stub_copy(const RunSetup& run) {
  if (!run.stub) return "";
  const fs::path copy = run.ctx.work / kStubFolder / "shipped" / run.ctx.lab_file_name;
  fs::create_directories(copy.parent_path());
  write_file_atomic(copy, run.stub->text);
  return copy.string();
}

// Threads that take the class's submissions from `to_build` and build them (one per core):
// each runnable one goes to `to_run` (and to `to_emulate` when its emulator part comes later),
// the others are finished at once.
std::vector<std::thread> start_builders(const GradingContext& ctx, unsigned jobs, EmulatorStep emulator,
                                        Queue<Submission>& to_build, Queue<Built>& to_run, Queue<Built>& to_emulate,
                                        Progress& progress, const std::function<void(const StudentResult&)>& finish) {
  std::vector<std::thread> builders;
  for (unsigned i = 0; i < jobs; ++i)
    builders.emplace_back([&, emulator] {
      Submission s;
      while (to_build.pop(s)) {
        progress.started(s.student);
        Built b;
        try {
          b = prepare_and_build(ctx, s, emulator);
        } catch (const std::exception& e) {
          // The grader's own trouble (a full disk, a jail that could not start) is not the
          // student's fault: no result is saved, so the next run grades this student again.
          std::cerr << "\ngrader: could not grade " << s.student << ": " << e.what() << "\n";
          continue;
        }
        if (!b.runnable) {
          finish(b.result);
          continue;
        }
        if (b.emulator_later) to_emulate.push(b);
        to_run.push(std::move(b));
      }
    });
  return builders;
}

// The emulator's part of each student (emulate()), on `threads` threads, started once the
// builds are done so that it takes no core from them: it overlaps the GPU's checks.
std::vector<std::thread> start_emulators(const GradingContext& ctx, unsigned threads, Queue<Built>& to_emulate,
                                         EmulatorMeeting& meeting) {
  std::vector<std::thread> emulators;
  for (unsigned i = 0; i < threads; ++i)
    emulators.emplace_back([&] {
      Built b;
      while (to_emulate.pop(b)) {
        try {
          emulate(ctx, b);
          meeting.emulator_done(b);
        } catch (const std::exception& e) {
          std::cerr << "\ngrader: could not grade " << b.result.student << ": " << e.what() << "\n";
          meeting.abandon(b.result.student);
        }
      }
    });
  return emulators;
}

// Threads that run each built submission's checks on its GPU, `per_slot` at a time per GPU.
// With `time_apart`, a correct one waits in to_time[g] for the timing; the others are done.
std::vector<std::thread> start_check_runners(const GradingContext& ctx, const RunSetup& run, bool time_apart,
                                             Queue<Built>& to_run, std::vector<std::vector<ToTime>>& to_time,
                                             std::mutex& to_time_mutex, EmulatorMeeting& meeting, Progress& progress) {
  std::vector<std::thread> runners;
  for (size_t g = 0; g < run.run_slots.size(); ++g)
    for (unsigned k = 0; k < run.per_slot; ++k)
      runners.emplace_back([&, g, time_apart] {
        const std::string& gpu = run.run_slots[g];
        Built b;
        while (to_run.pop(b)) {
          progress.started(b.result.student);
          try {
            bool pending = false;
            StudentResult r = run_and_finish(ctx, b, gpu, !time_apart, &pending);
            if (time_apart && score(r, ctx.rubric).correct) {
              std::lock_guard<std::mutex> l(to_time_mutex);
              to_time[g].push_back({std::move(b), std::move(r), pending});
            } else {
              meeting.gpu_done(b, std::move(r), pending);
            }
          } catch (const std::exception& e) {
            std::cerr << "\ngrader: could not grade " << b.result.student << ": " << e.what() << "\n";
            meeting.abandon(b.result.student);
          }
        }
      });
  return runners;
}

// Grades `todo`: builds in parallel (one per core); runs: on a GPU, the checks of several
// students at once (parallel_run_slots), then the timing of every correct submission one at a
// time, with the GPU to itself, between anchor runs of the reference; on the CPU backend (no
// timing) the checks alone. On a GPU the emulator's part of each student (the checks only it
// judges) waits until the builds are done, then runs beside the checks and the timing, held to
// the cores those leave. Each result is saved the moment it is whole, and added to `results`.
void grade_students(const RunSetup& run, const Config& cfg, const std::vector<Submission>& todo,
                    std::map<std::string, StudentResult>& results) {
  const GradingContext& ctx = run.ctx;
  Progress progress(todo.size(), stderr);
  std::mutex results_mutex;
  const std::function<void(const StudentResult&)> finish = [&](const StudentResult& r) {
    keep_source_copy(ctx, run.grades, r);
    save_student(run.grades, r, ctx.rubric, run.info);
    std::lock_guard<std::mutex> l(results_mutex);
    results[r.student] = r;
    progress.finished(r.student, outcome_line(r, ctx.rubric));
  };
  EmulatorMeeting meeting(ctx, finish);

  Queue<Submission> to_build;
  Queue<Built> to_run, to_emulate;
  for (const auto& s : todo) to_build.push(s);
  to_build.close();
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned jobs = cfg.jobs ? cfg.jobs : cores;
  // (--time-apart runs this two-phase schedule on the CPU backend too, where the
  // timing run only says "emulated": tests/grading checks that no result is lost in it.)
  const bool time_apart = ctx.backend == "cuda" || cfg.time_apart;
  const EmulatorStep emulator = time_apart ? EmulatorStep::Later : EmulatorStep::Inline;
  std::vector<std::vector<ToTime>> to_time(run.run_slots.size());
  std::mutex to_time_mutex;
  std::vector<std::thread> builders =
      start_builders(ctx, jobs, emulator, to_build, to_run, to_emulate, progress, finish);
  if (time_apart && run.run_slots.size() * run.per_slot > 1)
    std::cerr << "grader: checks of " << run.per_slot << " students at once per GPU; then each correct kernel is "
              << "timed alone\n";
  std::vector<std::thread> runners =
      start_check_runners(ctx, run, time_apart, to_run, to_time, to_time_mutex, meeting, progress);
  for (auto& t : builders) t.join();
  to_run.close();
  to_emulate.close();
  // Emulator runs beside the check runs and the timing: their jails at a low CPU weight and
  // off the kEmulatorCoresFree cores that the check and timing runs keep (emulator_cores()).
  // Measured on the H100 (300 students): with emulator runs on any core (each held to one core's
  // time), the timing's clock bound refused one run in six; kept off four cores, two runs of 256
  // (each then timed again). Made to end before the timing, they held it back by over a minute.
  const unsigned emulator_threads = jobs == cores ? ctx.emulator.threads : jobs;
  std::vector<std::thread> emulators = start_emulators(ctx, emulator_threads, to_emulate, meeting);
  for (auto& t : runners) t.join();
  time_correct_students(ctx, run.run_slots, run.reference, to_time, meeting);
  for (auto& t : emulators) t.join();
  meeting.finish_the_rest();
  progress.done();
  if (ctx.clock) std::cerr << ctx.clock->describe();
}

// --profile: after everyone is graded (on a GPU, after the timing: the profile's CPU work never
// runs beside a measurement), each student of this run whose checks all passed gets "why is it
// slow" (add_profile), `jobs` at a time, and their files are written again. Points do not move.
void profile_students(const RunSetup& run, const Config& cfg, const std::vector<Submission>& todo,
                      std::map<std::string, StudentResult>& results) {
  const GradingContext& ctx = run.ctx;
  if (!ctx.profile.asked) return;
  std::vector<std::pair<unsigned, StudentResult>> work;
  for (const auto& s : todo)
    if (auto it = results.find(s.student); it != results.end() && score(it->second, ctx.rubric).correct)
      work.push_back({s.index, it->second});
  if (work.empty()) return;
  std::cerr << "grader: --profile: why it is slow, estimated on the CPU backend, for " << work.size()
            << (work.size() == 1 ? " student" : " students") << " (no points)\n";
  std::mutex m;
  std::atomic<size_t> next{0};
  const unsigned jobs = std::max(1u, cfg.jobs ? cfg.jobs : std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned k = 0; k < std::min<size_t>(jobs, work.size()); ++k)
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < work.size();) {
        StudentResult r = work[i].second;
        try {
          add_profile(ctx, work[i].first, r);
          save_student(run.grades, r, ctx.rubric, run.info);
        } catch (const std::exception& e) {
          // The result saved without it stands: the profile is advice, never the grade.
          std::cerr << "\ngrader: no profile for " << r.student << ": " << e.what() << "\n";
          continue;
        }
        std::lock_guard<std::mutex> l(m);
        results[r.student] = r;
      }
    });
  for (auto& t : threads) t.join();
}

// Whole-class files, from every current student's result (new or kept): the gradebook, the
// summary and the class report. Returns the exit status: 1 when someone has no result.
int write_class_files(const RunSetup& run, const Config& cfg, const StudentPlan& plan,
                      const std::map<std::string, StudentResult>& results, const std::string& stub_copy,
                      double seconds) {
  const GradingContext& ctx = run.ctx;
  std::vector<StudentResult> all;
  for (const auto& s : plan.found.submissions)
    if (auto it = results.find(s.student); it != results.end()) all.push_back(it->second);
  std::vector<std::string> ids;
  for (const auto& c : ctx.reference_checks) ids.push_back(c.id);
  write_file_atomic(run.grades / "gradebook.csv", gradebook_csv(all, ctx.rubric, ids));
  RunFacts facts;
  facts.backend = ctx.backend;
  facts.gpus = run.gpus;
  facts.reference_ms = ctx.reference_ms;
  facts.seconds = seconds;
  if (ctx.clock) facts.time_by_step = ctx.clock->to_json();
  facts.graded_now = plan.todo.size();
  facts.resumed = plan.kept.size();
  facts.ignored = plan.found.ignored;
  facts.checks = ctx.reference_checks;
  facts.stub = stub_copy;
  facts.pseudonyms = pseudonyms(run.grades, all);
  for (const auto& r : all)
    if (fs::exists(student_source_copy(run.grades, r.student)))
      facts.sources[r.student] = student_source_copy(run.grades, r.student);
  nlohmann::json summary = summary_json(all, ctx.rubric, run.info, facts);
  write_file_atomic(run.grades / "summary.json", summary.dump(2) + "\n");
  std::cerr << closing_summary(summary);
  if (cfg.class_report) write_class_report(cfg.repo, run.grades);
  std::cerr << "Grades in " << run.grades.string() << "\n";
  return all.size() == plan.found.submissions.size() ? 0 : 1;
}

}  // namespace

int run_grader(const Config& cfg_in) {
  Config cfg = cfg_in;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    RunSetup run = prepare_run(cfg);
    PhaseClock clock;
    run.ctx.clock = &clock;
    set_reference(run, cfg);
    run.ctx.harness_proven = true;  // the reference went through a student's jailed build
    StudentPlan plan = plan_students(run, cfg);
    // Before anyone is graded, the stub goes the way each of them will: a setup that breaks
    // there stops the run, with no student's verdict written.
    if (!plan.todo.empty() && run.have_solution) {
      if (run.stub) {
        PhaseTimer step(&clock, "setup: stub");
        prove_stub(run.ctx, *run.stub, run.run_slots.front());
      } else
        std::cerr << "grader: no labs/" << run.ctx.lab_file_name
                  << ", so no stub goes through a student's path first\n";
    }
    const std::string stub_copy = keep_stub_copy(run);
    std::map<std::string, StudentResult> results = rescore_kept(run, plan);
    grade_students(run, cfg, plan.todo, results);
    profile_students(run, cfg, plan.todo, results);
    if (cfg.shard_count > 1) {
      size_t graded = 0;
      for (const auto& s : plan.todo) graded += results.count(s.student);
      std::cerr << "grader: share " << cfg.shard_index << " of 0.." << cfg.shard_count - 1 << " done (" << graded
                << " of " << plan.todo.size() << " graded, " << plan.kept.size()
                << " kept); a run without --shard writes the class files\n";
      finish_work_folder(run.ctx);
      return graded == plan.todo.size() ? 0 : 1;  // 1 when the grader's own trouble left someone out
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int status = write_class_files(run, cfg, plan, results, stub_copy, seconds);
    finish_work_folder(run.ctx);
    return status;
  } catch (const SetupError& e) {
    std::cerr << "grader: " << e.what()
              << "\ngrader: stopped before grading anyone: no student's result was written.\n";
    return 2;
  } catch (const RubricError& e) {
    std::cerr << "grader: rubric: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace grading
