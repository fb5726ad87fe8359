// A student's jails and what they see: their folders, uid, environment and limits, for their
// build (run_in_build_jail) and for their runner as the checker starts it (runner_jail); the text
// they are shown, without the grader's paths.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grading_context.h"
#include "process.h"

namespace grading {

// A folder of the work tree, made afresh: owned by the student's uid when `uid` is given
// (their build writes there), by the grader otherwise.
void fresh_dir(const fs::path& dir, std::optional<uid_t> uid, mode_t mode);

// The uid student `index` builds and runs as (uid_base + index), or none when nothing is jailed.
std::optional<uid_t> student_uid(const GradingContext& ctx, unsigned index);

// What the student may see of the grader's paths in their logs: nothing.
std::string without_grader_paths(std::string log, const GradingContext& ctx, const fs::path& dir);

// The whole environment of a build or a run (nothing of the grader's leaks in): PATH `path`, HOME
// and TMPDIR `home`, a UTF-8 locale, and the grader's LD_LIBRARY_PATH and ctx.build_env.
std::vector<std::string> base_env(const GradingContext& ctx, const fs::path& home, const std::string& path);

// One command of a student's build, in their jail: their uid, their folder, the course's build
// files read-only, nothing of the reference.
RunResult run_in_build_jail(const GradingContext& ctx, unsigned index, const fs::path& dir,
                            std::vector<std::string> argv, double timeout, size_t keep);

// The student's runner, as the checker starts it: jailed as the student's own uid, seeing its
// own program (read-only) and `run_dir` to work in, a private tmpfs as large as its /tmp (not
// the host's disk, which pieces each under the file limit would fill); nothing else. The
// checker itself runs as the grader, outside.
std::optional<JailSpec> runner_jail(const GradingContext& ctx, const Built& built, const fs::path& run_dir);

// After grading as root: nothing of the jails is left (their cgroups), and the work folder
// belongs to whoever owns the checkout again, so that their `make clean` can remove it.
void finish_work_folder(const GradingContext& ctx);

// The isolation of student `index`: their uid, the limits of the rubric, no folder yet.
JailSpec student_jail(const GradingContext& ctx, unsigned index);

}  // namespace grading
