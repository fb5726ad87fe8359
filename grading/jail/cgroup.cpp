#include "cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace grading {
namespace {

const char* kFolder = "cudalab";  // every job's group lives under one folder per hierarchy

bool write_text(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  ::close(fd);
  return ok;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool has_word(const std::string& list, const std::string& word) {
  std::istringstream in(list);
  for (std::string w; in >> w;)
    if (w == word) return true;
  return false;
}

struct Hierarchies {
  std::string v2_root;  // mount point of the unified hierarchy, "" none
  std::string v2_controllers;  // what its root offers
  std::string v1_memory, v1_pids, v1_cpu;  // this process's own group in each v1 hierarchy
};

// Where each hierarchy is mounted (/proc/self/mounts) and where this process sits in it
// (/proc/self/cgroup): v1 job groups go under our own group, so any limit already placed on
// us (a container's) still holds over them.
Hierarchies find_hierarchies() {
  Hierarchies h;
  std::string v1_mount[3];
  const char* v1_names[3] = {"memory", "pids", "cpu"};
  std::istringstream mounts(read_text("/proc/self/mounts"));
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream l(line);
    std::string dev, dir, type, opts;
    l >> dev >> dir >> type >> opts;
    if (type == "cgroup2" && h.v2_root.empty()) h.v2_root = dir;
    if (type != "cgroup") continue;
    std::string o = "," + opts + ",";
    for (int i = 0; i < 3; ++i)
      if (o.find("," + std::string(v1_names[i]) + ",") != std::string::npos && v1_mount[i].empty()) v1_mount[i] = dir;
  }
  if (!h.v2_root.empty()) h.v2_controllers = read_text(h.v2_root + "/cgroup.controllers");
  std::istringstream self(read_text("/proc/self/cgroup"));
  for (std::string line; std::getline(self, line);) {
    // "4:memory:/some/path" or "1:cpu,cpuacct:/path"
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string names = "," + line.substr(a + 1, b - a - 1) + ",", path = line.substr(b + 1);
    if (path == "/") path = "";
    for (int i = 0; i < 3; ++i)
      if (!v1_mount[i].empty() && names.find("," + std::string(v1_names[i]) + ",") != std::string::npos) {
        std::string& out = i == 0 ? h.v1_memory : i == 1 ? h.v1_pids : h.v1_cpu;
        out = v1_mount[i] + path;
      }
  }
  return h;
}

bool make_dir(const std::string& dir) { return ::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST; }

}  // namespace

JobCgroup::JobCgroup(const std::string& name, const CgroupLimits& L) {
  const Hierarchies h = find_hierarchies();
  // The unified hierarchy: always used when present (cgroup.kill, populated), and for every
  // controller it offers. Controllers pass down only through subtree_control, root first.
  std::string v2_job;
  if (!h.v2_root.empty()) {
    const std::string parent = h.v2_root + "/" + kFolder;
    if (make_dir(parent)) {
      for (const char* c : {"memory", "pids", "cpu", "cpuset"}) {
        if (!has_word(h.v2_controllers, c)) continue;
        write_text(h.v2_root + "/cgroup.subtree_control", std::string("+") + c);
        write_text(parent + "/cgroup.subtree_control", std::string("+") + c);
      }
      if (make_dir(parent + "/" + name)) {
        v2_job = parent + "/" + name;
        groups_.push_back({v2_job, true});
        kill_dir_ = v2_job;
      }
    }
  }
  const std::string v2_enabled = v2_job.empty() ? "" : read_text(v2_job + "/cgroup.controllers");
  auto place = [&](const char* controller, const std::string& v1_own, std::string& dir, bool& v2) {
    if (has_word(v2_enabled, controller)) {
      dir = v2_job;
      v2 = true;
      return;
    }
    if (v1_own.empty()) return;
    const std::string parent = v1_own + "/" + kFolder, job = parent + "/" + name;
    if (!make_dir(parent) || !make_dir(job)) return;
    dir = job;
    bool known = false;
    for (const auto& g : groups_) known |= g.dir == job;
    if (!known) groups_.push_back({job, false});
  };
  place("memory", h.v1_memory, memory_, memory_v2_);
  place("pids", h.v1_pids, pids_, pids_v2_);
  place("cpu", h.v1_cpu, cpu_, cpu_v2_);

  if (L.memory_bytes && !memory_.empty()) {
    const std::string bytes = std::to_string(L.memory_bytes);
    bool ok =
        memory_v2_ ? write_text(memory_ + "/memory.max", bytes) : write_text(memory_ + "/memory.limit_in_bytes", bytes);
    // No swap: a hog must meet the limit, not slow the machine down by paging.
    if (memory_v2_)
      write_text(memory_ + "/memory.swap.max", "0");
    else
      write_text(memory_ + "/memory.memsw.limit_in_bytes", bytes);
    if (!ok) memory_.clear();
  }
  if (L.pids && !pids_.empty() && !write_text(pids_ + "/pids.max", std::to_string(L.pids))) pids_.clear();
  // Cores: v2 only (v1's cpuset needs its memory nodes copied too); where it cannot be had, the
  // jail pins the command's affinity instead and refuses it sched_setaffinity (sandbox.cpp).
  if (!L.cpu_list.empty() && has_word(v2_enabled, "cpuset") && write_text(v2_job + "/cpuset.cpus", L.cpu_list))
    cpuset_ = v2_job;
  if (!cpu_.empty()) {
    bool ok = true;
    if (L.cpu_weight)
      ok &= cpu_v2_ ? write_text(cpu_ + "/cpu.weight", std::to_string(L.cpu_weight))
                    : write_text(cpu_ + "/cpu.shares", std::to_string(std::max(2u, L.cpu_weight * 1024 / 100)));
    if (L.cpus > 0) {
      const long period = 100000, quota = long(L.cpus * double(period));
      ok &= cpu_v2_ ? write_text(cpu_ + "/cpu.max", std::to_string(quota) + " " + std::to_string(period))
                    : write_text(cpu_ + "/cpu.cfs_period_us", std::to_string(period)) &&
                          write_text(cpu_ + "/cpu.cfs_quota_us", std::to_string(quota));
    }
    if (!ok) cpu_.clear();
  }
}

bool JobCgroup::add(pid_t pid) {
  bool ok = true;
  for (const auto& g : groups_) ok &= write_text(g.dir + "/cgroup.procs", std::to_string(pid));
  return ok;
}

void JobCgroup::kill_all() {
  if (!kill_dir_.empty()) write_text(kill_dir_ + "/cgroup.kill", "1");
  // v1 (or a v2 without cgroup.kill): kill members until none is left; new ones may appear
  // while a fork bomb runs, so repeat.
  for (int round = 0; round < 50; ++round) {
    bool any = false;
    for (const auto& g : groups_) {
      std::istringstream procs(read_text(g.dir + "/cgroup.procs"));
      for (pid_t p; procs >> p;) {
        ::kill(p, SIGKILL);
        any = true;
      }
    }
    if (!any) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// The value of `key` in a file of "key value" lines (memory.events, memory.oom_control); 0 when absent.
static long keyed_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string k; in >> k;) {
    long v = 0;
    in >> v;
    if (k == key) return v;
  }
  return 0;
}

bool JobCgroup::memory_limit_hit() const {
  if (memory_.empty()) return false;
  // v2 counts the OOM killer's kills in memory.events, v1 in memory.oom_control.
  return keyed_value(read_text(memory_ + (memory_v2_ ? "/memory.events" : "/memory.oom_control")), "oom_kill") > 0;
}

std::vector<std::pair<std::string, std::string>> JobCgroup::what() const {
  auto how = [](const std::string& dir, bool v2) {
    return dir.empty() ? std::string("none") : v2 ? "cgroup v2" : "cgroup v1";
  };
  return {{"memory", how(memory_, memory_v2_)},
          {"pids", how(pids_, pids_v2_)},
          {"cpu", how(cpu_, cpu_v2_)},
          {"cores", cpuset_.empty() ? "none" : "cgroup v2 cpuset"},
          {"kill",
           kill_dir_.empty() ? (groups_.empty() ? "process group" : "cgroup v1 members") : "cgroup v2 cgroup.kill"}};
}

JobCgroup::~JobCgroup() {
  kill_all();
  // A group is removable once its last process is gone (reaped by its parent, our init).
  for (int tries = 0; tries < 200; ++tries) {
    bool left = false;
    for (const auto& g : groups_)
      if (::rmdir(g.dir.c_str()) != 0 && errno != ENOENT) left = true;
    if (!left) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void remove_stale_job_cgroups() {
  const Hierarchies h = find_hierarchies();
  for (const std::string& base : {h.v2_root, h.v1_memory, h.v1_pids, h.v1_cpu}) {
    if (base.empty()) continue;
    const std::string parent = base + "/" + kFolder;
    DIR* d = ::opendir(parent.c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      if (e->d_type != DT_DIR || e->d_name[0] != 'j') continue;
      // "j<pid>" is the group of the jail with that pid. While that jail lives, its group is
      // its own, even when still empty (made, not yet joined): another grader on this machine
      // (a Slurm task beside this one, a test beside a test) must not remove it under it.
      char* end = nullptr;
      const long pid = std::strtol(e->d_name + 1, &end, 10);
      if (end && *end == '\0' && pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)) continue;
      ::rmdir((parent + "/" + e->d_name).c_str());
    }
    ::closedir(d);
  }
}

}  // namespace grading
