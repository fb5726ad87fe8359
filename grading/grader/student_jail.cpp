#include "student_jail.h"

#include <sys/stat.h>
#include <unistd.h>

#include "jail/cgroup.h"
#include "safe_io/text.h"

namespace grading {

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

}  // namespace

void fresh_dir(const fs::path& dir, std::optional<uid_t> uid, mode_t mode) {
  std::error_code ec;
  fs::remove_all(dir, ec);  // never follows a link the student left
  fs::create_directories(dir);
  if (uid && ::chown(dir.c_str(), *uid, *uid) != 0) throw std::runtime_error("cannot chown " + dir.string());
  ::chmod(dir.c_str(), mode);
}

std::optional<uid_t> student_uid(const GradingContext& ctx, unsigned index) {
  if (!ctx.jailed) return std::nullopt;
  return uid_t(ctx.uid_base + index);
}

std::string without_grader_paths(std::string log, const GradingContext& ctx, const fs::path& dir) {
  for (const fs::path& p : {dir / "src", dir / "bin", dir / "run", dir}) log = replace_all(log, p.string() + "/", "");
  log = replace_all(log, ctx.repo.string() + "/", "");
  log = replace_all(log, ctx.work.string() + "/", "");
  return clean_text(log);
}

std::vector<std::string> base_env(const GradingContext& ctx, const fs::path& home, const std::string& path) {
  std::vector<std::string> env = {"PATH=" + path, "HOME=" + home.string(), "TMPDIR=" + home.string(), "LANG=C.UTF-8",
                                  "LC_ALL=C.UTF-8"};
  if (!ctx.ld_library_path.empty()) env.push_back("LD_LIBRARY_PATH=" + ctx.ld_library_path);
  env.insert(env.end(), ctx.build_env.begin(), ctx.build_env.end());
  return env;
}

namespace {

Limits build_limits(const GradingContext& ctx) {
  Limits L;
  L.wall_seconds = ctx.build_timeout;
  L.data_bytes = ctx.rubric.limits.memory_mb << 20;
  L.file_bytes = 512ull << 20;
  L.processes = ctx.rubric.limits.processes;
  L.cpu_seconds = uint64_t(ctx.build_timeout * 2) + 10;
  L.output_keep_bytes = size_t(ctx.rubric.limits.output_kb) << 10;
  return L;
}

}  // namespace

// After grading as root: nothing of the jails is left (their cgroups), and the work folder
// belongs to whoever owns the checkout again, so that their `make clean` can remove it.
void finish_work_folder(const GradingContext& ctx) {
  if (!ctx.jailed) return;
  remove_stale_job_cgroups();
  struct stat st {};
  if (::stat(ctx.repo.c_str(), &st) != 0 || st.st_uid == 0) return;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(ctx.work, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec))
    if (::lchown(it->path().c_str(), st.st_uid, st.st_gid) != 0) continue;  // best effort: a file gone meanwhile
  if (::lchown(ctx.work.c_str(), st.st_uid, st.st_gid) != 0) return;
}

JailSpec student_jail(const GradingContext& ctx, unsigned index) {
  JailSpec j;
  j.uid = j.gid = uid_t(ctx.uid_base + index);
  j.allow_degraded = ctx.allow_degraded;
  j.gpu = ctx.backend == "cuda";
  j.cpu_weight = 100;  // every student the same share, whatever they spawn
  j.tmp_mb = 256;
  return j;
}

RunResult run_in_build_jail(const GradingContext& ctx, unsigned index, const fs::path& dir,
                            std::vector<std::string> argv, double timeout, size_t keep) {
  RunSpec spec;
  spec.argv = std::move(argv);
  spec.env = base_env(ctx, dir / "bin", ctx.path_env);
  spec.cwd = ctx.repo;
  spec.limits = build_limits(ctx);
  spec.limits.wall_seconds = timeout;
  spec.limits.output_keep_bytes = keep;
  if (ctx.jailed) {
    JailSpec j = student_jail(ctx, index);
    j.ro_bind = ctx.build_view;
    j.ro_bind.push_back((dir / "src").string());
    j.bind = {(dir / "bin").string()};
    j.hide = ctx.build_hide;
    spec.jail = j;
    spec.jail_program = ctx.jail_program;
  }
  return run_sandboxed(spec);
}

std::optional<JailSpec> runner_jail(const GradingContext& ctx, const Built& built, const fs::path& run_dir) {
  if (!ctx.jailed) return std::nullopt;
  JailSpec jail = student_jail(ctx, built.index);
  jail.ro_bind = {built.runner.parent_path().string()};
  // The CUDA runtime the runner links (found through its rpath in the toolkit's folder).
  if (!ctx.nvcc.empty()) jail.ro_bind.push_back(fs::path(ctx.nvcc).parent_path().parent_path().string());
  jail.scratch = {run_dir.string()};  // (without namespaces, the folder itself: made for that)
  jail.chdir = run_dir.string();
  jail.memory_mb = ctx.rubric.limits.memory_mb;
  jail.pids = ctx.rubric.limits.processes;
  jail.file_mb = ctx.rubric.limits.file_mb;
  jail.wall_seconds = ctx.run_timeout;
  if (!ctx.ld_library_path.empty()) jail.env.push_back("LD_LIBRARY_PATH=" + ctx.ld_library_path);
  return jail;
}

}  // namespace grading
