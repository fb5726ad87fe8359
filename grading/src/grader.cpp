#include "grader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>

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

std::string find_lab_file(const fs::path& repo, int lab) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(repo / "solutions", ec), end; !ec && it != end; it.increment(ec)) {
    std::string n = it->path().filename().string();
    if (n.rfind("lab" + std::to_string(lab) + "_", 0) == 0 && it->path().extension() == ".cu") names.push_back(n);
  }
  if (names.size() != 1) throw SetupError("expected one solutions/lab" + std::to_string(lab) + "_*.cu in " + repo.string());
  return names[0];
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

// Whether `inner` is `outer` or lies under it (links resolved).
bool within(const fs::path& inner, const fs::path& outer) {
  std::error_code ec;
  const fs::path rel = fs::weakly_canonical(inner, ec).lexically_relative(fs::weakly_canonical(outer, ec));
  return !rel.empty() && *rel.begin() != "..";
}

// What submissions' builds and runs must not see: the reference solutions and the grades
// (the whole grades folder where that hides nothing the build needs, else this lab's).
std::vector<fs::path> folders_to_hide(const fs::path& repo, const fs::path& work, const fs::path& grades_root,
                                      const fs::path& lab_grades) {
  auto hideable = [&](const fs::path& dir) { return !within(repo, dir) && !within(work, dir); };
  std::vector<fs::path> out = {repo / "solutions"};
  if (hideable(grades_root))
    out.push_back(grades_root);
  else if (hideable(lab_grades))
    out.push_back(lab_grades);
  return out;
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
    ctx.lab_file_name = find_lab_file(cfg.repo, cfg.lab);
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
    if (const char* l = std::getenv("LD_LIBRARY_PATH")) ctx.ld_library_path = l;
    ctx.build_timeout = cfg.build_timeout.value_or(ctx.rubric.limits.build_seconds);
    ctx.run_timeout = cfg.run_timeout.value_or(ctx.rubric.limits.run_seconds);

    if (geteuid() == 0 && cfg.isolate) {
      ctx.run_as = lookup_user(cfg.run_user);
      if (!ctx.run_as) throw SetupError("no user '" + cfg.run_user + "' to run submissions as");
      ctx.build_as = Identity{uid_t(cfg.build_uid), ctx.run_as->gid, "uid " + std::to_string(cfg.build_uid)};
      if (ctx.build_as->uid == ctx.run_as->uid) throw SetupError("builds and runs need different users");
      ctx.namespaces = namespaces_available();
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
    if (ctx.namespaces) ctx.hidden = folders_to_hide(cfg.repo, ctx.work, fs::absolute(cfg.grades), grades);

    // The reference solution: it builds the harness once (so that students' builds only
    // compile their file), gives the list of checks, and sets the bar for speed.
    std::cerr << "grader: lab " << cfg.lab << " on the " << (ctx.backend == "cuda" ? "GPU" : "CPU backend")
              << (gpus.empty() ? "" : " (" + std::to_string(gpus.size()) + " GPU(s))") << "; building the reference solution\n";
    const fs::path ref_dir = ctx.work / kReferenceFolder;
    fs::create_directories(ref_dir);
    const fs::path ref_bin = ref_dir / "lab";
    if (std::string err = build_trusted(ctx, cfg.repo / "solutions" / ctx.lab_file_name, ref_bin); !err.empty())
      throw SetupError("the reference solution does not build:\n" + err);
    LabInfo info{cfg.lab, ""};
    double ref_seconds = 0;
    for (const auto& gpu : run_slots) {
      LabRun ref = run_lab_binary(ctx, ref_bin, ref_dir, {"--seed", std::to_string(random_u64() >> 1)}, 1800, gpu, std::nullopt);
      if (!ref.has_report)
        throw SetupError("the reference solution " + ref.raw.describe() + " without a report (" + ref.problem + "):\n" +
                         ref.raw.output_with_note());
      LabReport rep = parse_lab_report(ref.report_json);
      for (const auto& c : rep.checks)
        if (c.status != "pass" && c.status != "skipped")
          throw SetupError("the reference solution fails check " + c.id + " here: " + c.message);
      ctx.reference_checks = rep.checks;
      if (rep.student_ms) ctx.reference_ms[gpu] = *rep.student_ms;
      else if (ctx.backend == "cuda") std::cerr << "grader: the reference was not timed on GPU " << gpu << " (" << rep.timing_note << "); speed gets no points\n";
      ref_seconds = std::max(ref_seconds, ref.raw.seconds);
      if (auto j = nlohmann::json::parse(ref.report_json); j.contains("title")) info.title = j["title"].get<std::string>();
    }
    check_rubric_ids(ctx.rubric, ctx.reference_checks);
    // A check alone gets a few times what the whole reference run needed, within the rubric.
    ctx.check_timeout = cfg.check_timeout.value_or(std::min(ctx.rubric.limits.check_seconds, 10 + 3 * ref_seconds));

    DiscoverOptions dopt{cfg.lab, ctx.lab_file_name, cfg.student_name};
    Discovery found = discover(cfg.submissions, dopt);
    auto existing = load_results(grades);
    std::vector<Submission> todo;
    std::map<std::string, StudentResult> results;
    size_t resumed = 0;
    for (const auto& s : found.submissions) {
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
    std::cerr << "grader: " << found.submissions.size() << " submissions, " << todo.size() << " to grade"
              << (resumed ? ", " + std::to_string(resumed) + " already graded" : "") << "\n";

    Progress progress(todo.size(), stderr);
    std::mutex results_mutex;
    auto finish = [&](const StudentResult& r) {
      save_student(grades, r, ctx.rubric, info);
      std::lock_guard<std::mutex> l(results_mutex);
      results[r.student] = r;
      progress.finished(r.student, outcome_line(r, ctx.rubric));
    };

    // Builds in parallel (one per core); runs one at a time per GPU (or one on the CPU,
    // where the emulator already uses every core), so that timings never overlap.
    Queue<Submission> to_build;
    Queue<Built> to_run;
    for (const auto& s : todo) to_build.push(s);
    to_build.close();
    const unsigned jobs = cfg.jobs ? cfg.jobs : std::max(1u, std::thread::hardware_concurrency());
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
    for (const auto& gpu : run_slots)
      runners.emplace_back([&, gpu] {
        Built b;
        while (to_run.pop(b)) {
          const std::string student = b.result.student;  // b is moved from below
          progress.started(student);
          try {
            finish(run_and_finish(ctx, std::move(b), gpu));
          } catch (const std::exception& e) {
            std::cerr << "\ngrader: could not grade " << student << ": " << e.what() << "\n";
          }
        }
      });
    for (auto& t : builders) t.join();
    to_run.close();
    for (auto& t : runners) t.join();
    progress.done();

    // Whole-class files, from every current student's result (new or resumed).
    std::vector<StudentResult> all;
    for (const auto& s : found.submissions)
      if (auto it = results.find(s.student); it != results.end()) all.push_back(it->second);
    std::vector<std::string> ids;
    for (const auto& c : ctx.reference_checks) ids.push_back(c.id);
    write_file_atomic(grades / "gradebook.csv", gradebook_csv(all, ctx.rubric, ids));
    RunFacts facts{ctx.backend, gpus, ctx.reference_ms,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), todo.size(), resumed,
                   found.ignored};
    nlohmann::json summary = summary_json(all, ctx.rubric, info, facts);
    write_file_atomic(grades / "summary.json", summary.dump(2) + "\n");
    std::cerr << closing_summary(summary) << "Grades in " << grades.string() << "\n";
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
