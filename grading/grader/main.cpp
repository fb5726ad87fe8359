// cudalab-grade: grades a folder of lab submissions. See grading/README.md.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <thread>

#include "grader.h"
#include "process.h"

int main(int argc, char** argv) {
  grading::Config cfg;
  CLI::App app{"cudalab grader: builds, runs and scores every submission of a lab"};
  app.add_option("--lab", cfg.lab, "lab number")->required()->check(CLI::Range(1, 99));
  app.add_option("--submissions", cfg.submissions, "folder of submissions")->required();
  app.add_option("--grades", cfg.grades, "results go to GRADES/labN/")->capture_default_str();
  app.add_option("--repo", cfg.repo,
                 "the cudalab checkout (harness, solutions, Makefile); default: the one this program was built in");
  app.add_option("--work", cfg.work, "build and run folders (default REPO/build/grading/labN)");
  app.add_option("--rubric", cfg.rubric, "rubric file (default REPO/grading/rubrics/labN.toml)");
  app.add_option("--backend", cfg.backend, "auto, cuda or cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))
      ->capture_default_str();
  app.add_flag("--force", cfg.force, "grade again students already graded with the same file");
  app.add_option("--jobs", cfg.jobs, "parallel builds (default: one per core)");
  app.add_option("--build-timeout", cfg.build_timeout, "seconds per build (default: the rubric's)");
  app.add_option("--run-timeout", cfg.run_timeout,
                 "seconds per student's whole run: checker and runners (default: the rubric's)");
  app.add_option("--check-timeout", cfg.check_timeout,
                 "seconds per check, the checker's --check-timeout (default: from the reference's time)");
  app.add_option("--student", cfg.student_name, "name for a Gradescope-style single submission")->capture_default_str();
  app.add_option("--uid-base", cfg.uid_base, "as root, student i builds and runs as uid BASE+i")->capture_default_str();
  app.add_flag("--allow-degraded", cfg.allow_degraded,
               "as root where namespaces are refused (a container): isolate what can be");
  std::string shard;
  app.add_option("--shard", shard,
                 "K/N: grade only every N-th student from the K-th (0-based), no class files (Slurm arrays)")
      ->check([](const std::string& v) -> std::string {
        unsigned k = 0, n = 0;
        char end = 0;
        if (std::sscanf(v.c_str(), "%u/%u%c", &k, &n, &end) != 2 || n == 0 || k >= n)
          return "--shard takes K/N with 0 <= K < N, such as 0/8 (got '" + v + "')";
        return "";
      });
  app.add_option("--parallel-runs", cfg.parallel_runs,
                 "correctness runs at once per GPU (timing always runs alone); default from cores and memory");
  app.add_flag("!--no-report", cfg.class_report, "do not write the class report (report.html)");
  app.add_option(
         "--emulator-verdicts", cfg.emulator_verdicts,
         "checks only the CPU backend's emulator can judge (barriers, races): auto (also build each file for "
         "the CPU backend under its race detector and take them from that run: on a GPU, and on the CPU "
         "backend for the races its plain run cannot judge), always (every such check, on either backend), never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag(
      "--time-apart", cfg.time_apart,
      "on the CPU backend too, check everyone first and time the correct ones afterwards, as on a GPU (tests)");
  app.add_flag("--timing-trace", cfg.timing_trace,
               "write where each timing run's time goes (waiting for the GPU, each batch's steps) to "
               "<work>/timing-trace.log");
  app.add_flag(
      "--profile", cfg.profile,
      "for each student whose checks all passed, a \"why is it slow\" section estimated on the CPU backend "
      "(a profile build of their file beside the reference's), in the feedback only: no points (make grade PROFILE=1)");
  CLI11_PARSE(app, argc, argv);
  if (!shard.empty()) std::sscanf(shard.c_str(), "%u/%u", &cfg.shard_index, &cfg.shard_count);

  // SIGINT/SIGTERM: kill every running submission's process group, then leave. Handled on
  // a thread of its own (sigwait), so the handler may take locks.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  std::thread([set] {
    int sig = 0;
    sigwait(&set, &sig);
    grading::kill_all_running();
    _exit(128 + sig);
  }).detach();
  return grading::run_grader(cfg);
}
