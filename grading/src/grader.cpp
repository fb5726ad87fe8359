#include "grader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>

#include "class_files.h"
#include "discover.h"
#include "grade_student.h"
#include "lab_report.h"
#include "progress.h"
#include "scoring.h"
#include "store.h"
#include "util.h"
#include "writers.h"

namespace grading {
namespace {

struct SetupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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

// What a student's build sees of the course, read-only: the makefiles, the harness's
// sources and the built harness of this backend. Not the reference solutions, not the
// grader's folders (build/grading: other students, the reference build), not the grades or
// the submissions (never under a path listed here); inside build/<backend>, every folder of
// generated copies of the solutions is covered.
void set_build_view(GradingContext& ctx) {
  const fs::path built = ctx.repo / "build" / ctx.backend;
  // tools/deps.sh and its stamps: make's check that the CPU backend's libraries are there
  // (the trusted builds before made the stamps, so the student's build only reads them).
  for (const fs::path& p : {ctx.repo / "Makefile", ctx.repo / "mk", ctx.repo / "harness", ctx.repo / "tools" / "deps.sh",
                            ctx.repo / "build" / "deps", built})
    if (fs::exists(p)) ctx.build_view.push_back(p.string());
  if (!ctx.nvcc.empty()) ctx.build_view.push_back(fs::path(ctx.nvcc).parent_path().parent_path().string());
  std::error_code ec;
  for (fs::recursive_directory_iterator it(built, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 4) it.disable_recursion_pending();
    if (it->is_directory(ec) && !it->is_symlink(ec) && it->path().filename() == "solutions") {
      ctx.build_hide.push_back(it->path().string());
      it.disable_recursion_pending();
    }
  }
}

// How many checker runs share one GPU while checking (timing always has it alone). Each run
// is a checker (the references, on the host, multi-threaded) and a runner (the kernels): a
// few per GPU keep it busy while the host computes, bounded by the cores (four each) and by
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
  return unsigned(std::clamp<uint64_t>(std::min<uint64_t>(cores / 4, by_memory), 1, 8));
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

}  // namespace

int run_grader(const Config& cfg_in) {
  Config cfg = cfg_in;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    cfg.repo = fs::absolute(cfg.repo);
    if (cfg.rubric.empty()) cfg.rubric = cfg.repo / "grading" / "rubrics" / ("lab" + std::to_string(cfg.lab) + ".toml");
    if (cfg.work.empty()) cfg.work = cfg.repo / "build" / "grading" / ("lab" + std::to_string(cfg.lab));
    const fs::path grades = fs::absolute(cfg.grades) / ("lab" + std::to_string(cfg.lab));
    if (!fs::is_directory(cfg.submissions)) throw SetupError("no folder of submissions at " + cfg.submissions.string());

    GradingContext ctx;
    ctx.repo = cfg.repo;
    ctx.work = fs::absolute(cfg.work);
    ctx.lab = cfg.lab;
    // The reference: the solution where there is one; else (Gradescope ships none) the lab's
    // stub gives the list of checks, and nothing is compared against a reference time.
    ctx.lab_file_name = find_lab_file(cfg.repo / "solutions", cfg.lab);
    const bool have_solution = !ctx.lab_file_name.empty();
    if (!have_solution) ctx.lab_file_name = find_lab_file(cfg.repo / "labs", cfg.lab);
    if (ctx.lab_file_name.empty())
      throw SetupError("no solutions/lab" + std::to_string(cfg.lab) + "_*.cu nor labs/lab" + std::to_string(cfg.lab) +
                       "_*.cu in " + cfg.repo.string());
    ctx.rubric = load_rubric(cfg.rubric);
    if (ctx.rubric.lab != cfg.lab) throw SetupError(cfg.rubric.string() + " is the rubric of lab " + std::to_string(ctx.rubric.lab));

    std::vector<std::string> gpus;
    if (cfg.backend == "auto" || cfg.backend == "cuda") gpus = find_gpus();
    if (cfg.backend == "cuda" && gpus.empty()) throw SetupError("BACKEND=cuda, but no GPU answers here");
    ctx.backend = gpus.empty() ? "cpu" : "cuda";
    if (cfg.backend == "cpu") {
      ctx.backend = "cpu";
      gpus.clear();
    }
    std::vector<std::string> run_slots = ctx.backend == "cuda" ? gpus : std::vector<std::string>{""};

    ctx.path_env = std::getenv("PATH") ? std::getenv("PATH") : "/usr/local/bin:/usr/bin:/bin";
    // A jailed build sees the jail's own PATH: it is handed nvcc by absolute path, and the
    // toolkit's folder (often /usr/local/cuda, sometimes /opt) is part of its view.
    if (ctx.backend == "cuda")
      for (size_t b = 0, e; b <= ctx.path_env.size(); b = e + 1) {
        e = ctx.path_env.find(':', b);
        if (e == std::string::npos) e = ctx.path_env.size();
        const fs::path candidate = fs::path(ctx.path_env.substr(b, e - b)) / "nvcc";
        std::error_code ec;
        if (!candidate.parent_path().empty() && fs::exists(candidate, ec)) {
          ctx.nvcc = fs::canonical(candidate, ec).string();
          break;
        }
      }
    if (const char* l = std::getenv("LD_LIBRARY_PATH")) ctx.ld_library_path = l;
    ctx.build_timeout = cfg.build_timeout.value_or(ctx.rubric.limits.build_seconds);
    ctx.run_timeout = cfg.run_timeout.value_or(ctx.rubric.limits.run_seconds);

    if (geteuid() == 0 && cfg.isolate) {
      ctx.jailed = true;
      ctx.jail_program = (cfg.repo / "build/grading/cudalab-jail").string();
      if (!fs::exists(ctx.jail_program)) throw SetupError("no " + ctx.jail_program + " (make build/grading/cudalab-jail)");
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
    fs::create_directories(grades / "students");
    ::chmod(grades.c_str(), 0700);
    ::chmod((grades / "students").c_str(), 0700);
    if (ctx.jailed) set_build_view(ctx);

    // The checker, built once for everyone from the course's code alone; then the reference
    // solution's runner (this also builds the runner's harness, so that students' builds only
    // compile their file). Its run gives the list of checks and sets the bar for speed.
    std::cerr << "grader: lab " << cfg.lab << " on the " << (ctx.backend == "cuda" ? "GPU" : "CPU backend")
              << (gpus.empty() ? "" : " (" + std::to_string(gpus.size()) + " GPU(s))") << "; building the checker and the "
              << (have_solution ? "reference solution" : "lab's stub (no solution here)") << "\n";
    if (std::string err = build_checker(ctx); !err.empty()) throw SetupError("the lab's checker does not build:\n" + err);
    ctx.checker = cfg.repo / "build" / ctx.backend / "check" / ("lab" + std::to_string(cfg.lab));
    if (!fs::exists(ctx.checker)) throw SetupError("no checker at " + ctx.checker.string() + " after building it");
    const fs::path ref_dir = ctx.work / kReferenceFolder;
    fs::create_directories(ref_dir);
    ::chmod(ref_dir.c_str(), 0700);
    const fs::path ref_runner = ref_dir / "lab";
    const fs::path ref_src = cfg.repo / (have_solution ? "solutions" : "labs") / ctx.lab_file_name;
    if (std::string err = build_trusted_runner(ctx, ref_src, ref_runner); !err.empty())
      throw SetupError(std::string("the ") + (have_solution ? "reference solution" : "lab's stub") + " does not build:\n" + err);
    LabInfo info{cfg.lab, ""};
    double ref_seconds = 0;
    // The stub runs once, untimed, for the list of checks; the solution once per GPU.
    const std::vector<std::string> ref_slots = have_solution ? run_slots : std::vector<std::string>{run_slots.front()};
    for (const auto& gpu : ref_slots) {
      std::vector<std::string> args = {"--seed", std::to_string(random_u64() >> 1)};
      if (!have_solution) args.push_back("--no-timing");
      LabRun ref = run_checker(ctx, ref_runner, ref_dir, args, 1800, gpu, std::nullopt);
      if (!ref.has_report)
        throw SetupError("the checker " + ref.raw.describe() + " without a report (" + ref.problem + "):\n" +
                         ref.raw.output_with_note());
      LabReport rep = parse_lab_report(ref.report_json);
      if (have_solution)
        for (const auto& c : rep.checks)
          if (c.status != "pass" && c.status != "skipped")
            throw SetupError("the reference solution fails check " + c.id + " here: " + c.message);
      ctx.reference_checks = rep.checks;
      for (auto& c : ctx.reference_checks)
        if (c.status != "skipped") c.message.clear(), c.details.clear();
      if (!have_solution) {
        if (ctx.backend == "cuda") std::cerr << "grader: no reference solution here, so speed gets no points\n";
      } else if (rep.student_ms) {
        ctx.reference_ms[gpu] = *rep.student_ms;
        if (rep.naive_ms) ctx.reference_naive_ms[gpu] = *rep.naive_ms;
      } else if (ctx.backend == "cuda") {
        std::cerr << "grader: the reference was not timed on GPU " << gpu << " (" << rep.timing_note << "); speed gets no points\n";
      }
      ref_seconds = std::max(ref_seconds, ref.raw.seconds);
      if (auto j = nlohmann::json::parse(ref.report_json); j.contains("title")) info.title = j["title"].get<std::string>();
    }
    check_rubric_ids(ctx.rubric, ctx.reference_checks);
    // One check gets a few times what the whole reference run needed, within the rubric: a
    // hung check costs this much, and the next check gets a fresh runner.
    // Runs that share a GPU (and the host's cores) take longer than the reference did alone:
    // the limit grows with them, so that no correct student's check is cut short by the load.
    const unsigned per_slot = cfg.parallel_runs ? cfg.parallel_runs : parallel_run_slots(ctx);
    ctx.check_timeout = cfg.check_timeout.value_or(
        std::min(ctx.rubric.limits.check_seconds * per_slot, (10 + 3 * ref_seconds) * per_slot));

    DiscoverOptions dopt{cfg.lab, ctx.lab_file_name, cfg.student_name};
    Discovery found = discover(cfg.submissions, dopt);
    auto existing = load_results(grades);
    std::vector<Submission> todo;
    std::map<std::string, StudentResult> results;
    size_t resumed = 0;
    const bool sharded = cfg.shard_count > 1;
    for (size_t i = 0; i < found.submissions.size(); ++i) {
      const Submission& s = found.submissions[i];
      if (sharded && i % cfg.shard_count != cfg.shard_index) continue;  // another task's share
      auto it = existing.find(s.student);
      if (!cfg.force && it != existing.end() && it->second.key == submission_key(s, ctx.backend)) {
        results[s.student] = it->second;
        // Not run again, but scored again: the rubric may have changed since.
        try {
          save_derived(grades, it->second, ctx.rubric, info);
        } catch (const std::exception& e) {
          std::cerr << "grader: could not rewrite the feedback of " << s.student << ": " << e.what() << "\n";
        }
        ++resumed;
      } else {
        todo.push_back(s);
      }
    }
    std::cerr << "grader: " << found.submissions.size() << " submissions"
              << (sharded ? " (this is share " + std::to_string(cfg.shard_index) + " of 0.." +
                                std::to_string(cfg.shard_count - 1) + ")"
                          : "")
              << ", " << todo.size() << " to grade"
              << (resumed ? ", " + std::to_string(resumed) + " already graded" : "") << "\n";

    Progress progress(todo.size(), stderr);
    std::mutex results_mutex;
    auto finish = [&](const StudentResult& r) {
      keep_source_copy(ctx, grades, r);
      save_student(grades, r, ctx.rubric, info);
      std::lock_guard<std::mutex> l(results_mutex);
      results[r.student] = r;
      progress.finished(r.student, outcome_line(r, ctx.rubric));
    };

    // Builds in parallel (one per core). Runs: on a GPU, the checks of several students at
    // once (parallel_run_slots), then the timing of every correct submission one at a time,
    // with the GPU to itself; on the CPU backend (no timing) the checks alone.
    Queue<Submission> to_build;
    Queue<Built> to_run;
    for (const auto& s : todo) to_build.push(s);
    to_build.close();
    const unsigned jobs = cfg.jobs ? cfg.jobs : std::max(1u, std::thread::hardware_concurrency());
    // (The test variable runs this two-phase schedule on the CPU backend too, where the
    // timing run only says "emulated": tests/grading checks that no result is lost in it.)
    const bool time_apart = ctx.backend == "cuda" || std::getenv("CUDALAB_GRADER_TEST_TIME_APART");
    std::vector<std::vector<std::pair<Built, StudentResult>>> to_time(run_slots.size());
    std::vector<std::thread> builders, runners;
    for (unsigned i = 0; i < jobs; ++i)
      builders.emplace_back([&] {
        Submission s;
        while (to_build.pop(s)) {
          progress.started(s.student);
          Built b;
          try {
            b = prepare_and_build(ctx, s);
          } catch (const std::exception& e) {
            // The grader's own trouble (a full disk, say) is not the student's fault: no
            // result is saved, so the next run grades this student again.
            std::cerr << "\ngrader: could not grade " << s.student << ": " << e.what() << "\n";
            continue;
          }
          if (b.runnable)
            to_run.push(std::move(b));
          else
            finish(b.result);
        }
      });
    if (time_apart && run_slots.size() * per_slot > 1)
      std::cerr << "grader: checks of " << per_slot << " students at once per GPU; then each correct kernel is timed "
                << "alone\n";
    for (size_t g = 0; g < run_slots.size(); ++g)
      for (unsigned k = 0; k < per_slot; ++k)
        runners.emplace_back([&, g] {
          const std::string& gpu = run_slots[g];
          Built b;
          while (to_run.pop(b)) {
            progress.started(b.result.student);
            try {
              StudentResult r = run_and_finish(ctx, b, gpu, !time_apart);
              if (time_apart && score(r, ctx.rubric).correct) {
                std::lock_guard<std::mutex> l(results_mutex);
                to_time[g].emplace_back(std::move(b), std::move(r));
              } else {
                finish(r);
              }
            } catch (const std::exception& e) {
              std::cerr << "\ngrader: could not grade " << b.result.student << ": " << e.what() << "\n";
            }
          }
        });
    for (auto& t : builders) t.join();
    to_run.close();
    for (auto& t : runners) t.join();
    // The timing runs: one per GPU at a time, nothing else on it.
    std::vector<std::thread> timers;
    for (size_t g = 0; g < run_slots.size(); ++g)
      timers.emplace_back([&, g] {
        for (auto& [b, r] : to_time[g]) {
          try {
            time_student(ctx, b, r, run_slots[g]);
            finish(r);
          } catch (const std::exception& e) {
            std::cerr << "\ngrader: could not time " << r.student << ": " << e.what() << "\n";
          }
        }
      });
    for (auto& t : timers) t.join();
    progress.done();

    if (sharded) {
      size_t graded = 0;
      for (const auto& s : todo) graded += results.count(s.student);
      std::cerr << "grader: share " << cfg.shard_index << " of 0.." << cfg.shard_count - 1 << " done (" << graded
                << " of " << todo.size() << " graded, " << resumed
                << " kept); a run without --shard writes the class files\n";
      finish_work_folder(ctx);
      return graded == todo.size() ? 0 : 1;  // as below: 1 when the grader's own trouble left someone out
    }
    // Whole-class files, from every current student's result (new or resumed).
    std::vector<StudentResult> all;
    for (const auto& s : found.submissions)
      if (auto it = results.find(s.student); it != results.end()) all.push_back(it->second);
    std::vector<std::string> ids;
    for (const auto& c : ctx.reference_checks) ids.push_back(c.id);
    write_file_atomic(grades / "gradebook.csv", gradebook_csv(all, ctx.rubric, ids));
    RunFacts facts;
    facts.backend = ctx.backend;
    facts.gpus = gpus;
    facts.reference_ms = ctx.reference_ms;
    facts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    facts.graded_now = todo.size();
    facts.resumed = resumed;
    facts.ignored = found.ignored;
    facts.checks = ctx.reference_checks;
    if (fs::exists(cfg.repo / "labs" / ctx.lab_file_name)) facts.stub = (cfg.repo / "labs" / ctx.lab_file_name).string();
    facts.pseudonyms = pseudonyms(grades, all);
    for (const auto& r : all)
      if (fs::exists(student_source_copy(grades, r.student))) facts.sources[r.student] = student_source_copy(grades, r.student);
    nlohmann::json summary = summary_json(all, ctx.rubric, info, facts);
    write_file_atomic(grades / "summary.json", summary.dump(2) + "\n");
    std::cerr << closing_summary(summary);
    if (cfg.class_report) write_class_report(cfg.repo, grades);
    std::cerr << "Grades in " << grades.string() << "\n";
    finish_work_folder(ctx);
    return all.size() == found.submissions.size() ? 0 : 1;
  } catch (const SetupError& e) {
    std::cerr << "grader: " << e.what() << "\n";
    return 2;
  } catch (const RubricError& e) {
    std::cerr << "grader: rubric: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace grading
