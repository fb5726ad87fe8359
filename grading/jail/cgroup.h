// One control group for one jailed command (cudalab-jail): aggregate limits on memory (all
// processes together, tmpfs pages included), number of tasks and CPU, and a kill that reaches
// every process in it. Uses cgroup v2 for each controller the unified hierarchy offers, the v1
// hierarchy of that controller otherwise (hybrid hosts, such as CI's machine), and says which
// it got: the caller falls back to rlimits for what is missing and reports it.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace grading {

struct CgroupLimits {
  uint64_t memory_bytes = 0;  // 0: none
  uint64_t pids = 0;  // 0: none
  unsigned cpu_weight = 0;  // 1..10000 (v2 cpu.weight; v1 cpu.shares scaled), 0: default
  double cpus = 0;  // cpu.max as a number of CPUs, 0: none
  std::string cpu_list;  // v2 cpuset.cpus ("4-15"): the cores the group may run on, "": any
};

class JobCgroup {
 public:
  // Creates the groups ("<parent>/cudalab/<name>" per hierarchy) and sets the limits.
  // Never throws: whatever could not be had is missing from what().
  JobCgroup(const std::string& name, const CgroupLimits& limits);
  ~JobCgroup();  // kills what is left, waits for it to go, removes the groups
  JobCgroup(const JobCgroup&) = delete;
  JobCgroup& operator=(const JobCgroup&) = delete;

  bool add(pid_t pid);  // into every group; false when one refused
  void kill_all();  // cgroup.kill on v2, else SIGKILL to every member until none is left
  bool memory_limit_hit() const;  // the kernel's OOM killer acted in the group
  // How each part is held, for the isolation report: {"memory", "cgroup v2"}, {"pids", "none"}, ...
  std::vector<std::pair<std::string, std::string>> what() const;

 private:
  struct Group {
    std::string dir;  // absolute path of this job's group in one hierarchy
    bool v2 = false;
  };
  std::vector<Group> groups_;  // distinct directories, each gets the pid
  std::string memory_, pids_, cpu_;  // the group dir holding each controller ("" none)
  std::string cpuset_;  // the v2 group holding cpuset.cpus ("" none: the caller pins)
  bool memory_v2_ = false, pids_v2_ = false, cpu_v2_ = false;
  std::string kill_dir_;  // a v2 group (cgroup.kill), "" when none
};

// Removes empty job groups left by jails that were killed outright (SIGKILL gives them no
// chance to clean up): only those whose jail (the pid in the name) is gone. Safe to call any
// time, from any number of graders: a live jail's group and a group with processes stay.
void remove_stale_job_cgroups();

}  // namespace grading
