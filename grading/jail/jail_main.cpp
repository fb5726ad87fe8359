// cudalab-jail: runs ONE untrusted command (a student's build, or a kernel runner started by
// the trusted checker) in a fresh isolation, and execs it. Needs root. The setup is in
// sandbox.cpp; grading/README.md's trust model says what it guarantees.
//
//   cudalab-jail [options] -- COMMAND [ARGS...]
//
// Identity (the student's own, never root):
//   --uid N --gid N          run as this uid/gid (default 65534, nobody)
//   --uid-base B --index I   run as uid = gid = B + I (one identity per student)
// What the command sees (a fresh tmpfs root; the system folders /usr /bin /lib* /etc /opt
// read-only, /dev/null zero full random urandom, a /proc of its own PID namespace, and
// private tmpfs /tmp, /var/tmp and /dev/shm; nothing else of the host):
//   --bind PATH              PATH visible read-write at the same place (no symlink on its path)
//   --ro-bind PATH           PATH visible read-only
//   --hide PATH              an empty read-only folder over PATH (inside a visible folder)
//   --scratch PATH           a private tmpfs at PATH (--tmp-mb, the command's own): a working
//                            folder that cannot fill the host's disk and is gone with the jail
//   --dev PATH               a device node made visible
//   --gpu                    every /dev/nvidia* and a read-only /sys
//   --chdir PATH             working folder (default /tmp)
//   --tmp-mb N               size of each private tmpfs (default 256)
// Limits on the whole tree of processes (cgroup v2, or v1 per controller on hybrid hosts;
// where neither can hold one, the rlimit fallback named in the isolation report):
//   --memory-mb N            memory of every process together, tmpfs pages included, no swap
//                            (fallback: RLIMIT_DATA per process)
//   --pids N                 tasks (fallback: RLIMIT_NPROC for the uid)
//   --cpu-weight N           CPU share against other jails, 1..10000 (100 is the default share)
//   --cpus X                 at most X CPUs' worth of time
//   --cpu-list L             only these cores (4-15, 0-3,8): a cgroup v2 cpuset, else affinity
//                            with sched_setaffinity refused to the command (seccomp)
//   --wall SECONDS           then every process it started is killed (cgroup.kill and the PID
//                            namespace's end), whatever it does with signals, clocks or output
//   --file-mb N              largest file one process may write (RLIMIT_FSIZE)
// Descriptors and environment:
//   descriptors 0, 1, 2 and 3 (the kernel runner's socket) stay open; every other one closes
//   --keep-fd N              keep N open too (repeatable)
//   --env NAME=VALUE         the environment is PATH, HOME=/tmp, TMPDIR=/tmp, LANG and
//                            CUDA_VISIBLE_DEVICES (when set), plus these; nothing else passes
// Reporting:
//   --report-isolation FILE  one JSON object: the isolation obtained (level full/partial/
//                            degraded, uid, namespaces, each limit's mechanism, fallbacks) and
//                            the outcome; without it, a line on stderr when the level is not full
//   --allow-degraded         where the host refuses namespaces (some containers), run anyway
//                            as the uid with the limits it can have, and say so (level degraded)
//   --quiet                  no isolation line on stderr
//   --die-with-parent        when the process that started the jail dies, end the jail (as
//                            SIGTERM would): the trusted checker's runners go with it
//
// Exit status: the command's; 128+N when signal N ended it (the jail dies of the same signal);
// 124 when the wall-clock limit stopped it; 125 when the jail could not be set up (why, on
// stderr). Nothing the command started, mounted or wrote outside its --bind folders outlives
// the jail; its cgroup is removed.
#include <CLI/CLI.hpp>

#include "sandbox.h"

int main(int argc, char** argv) {
  grading::JailSpec spec;
  std::vector<std::string> command;
  unsigned uid = 65534, gid = 65534;
  std::optional<unsigned> uid_base, index;
  CLI::App app{"cudalab-jail: runs one untrusted command in its own identity, namespaces and cgroup"};
  app.add_option("--uid", uid, "uid to run as");
  app.add_option("--gid", gid, "gid to run as");
  app.add_option("--uid-base", uid_base, "uid = gid = base + index");
  app.add_option("--index", index, "the student's index (with --uid-base)");
  app.add_option("--bind", spec.bind, "visible read-write");
  app.add_option("--ro-bind", spec.ro_bind, "visible read-only");
  app.add_option("--hide", spec.hide, "covered by an empty folder");
  app.add_option("--scratch", spec.scratch, "a private tmpfs, the command's own");
  app.add_option("--dev", spec.devices, "a device node made visible");
  app.add_flag("--gpu", spec.gpu, "GPU device nodes and /sys");
  app.add_option("--chdir", spec.chdir, "working folder")->capture_default_str();
  app.add_option("--tmp-mb", spec.tmp_mb, "size of /tmp, /var/tmp, /dev/shm")->capture_default_str();
  app.add_option("--memory-mb", spec.memory_mb, "memory of the whole tree");
  app.add_option("--pids", spec.pids, "tasks in the whole tree");
  app.add_option("--cpu-weight", spec.cpu_weight, "CPU share")->check(CLI::Range(1, 10000));
  app.add_option("--cpus", spec.cpus, "CPUs' worth of time");
  app.add_option("--cpu-list", spec.cpu_list, "the cores it may run on (4-15, 0-3,8)")->check([](const std::string& v) {
    return grading::parse_cpu_list(v) ? std::string() : std::string("write cores as 4-15 or 0-3,8");
  });
  app.add_option("--wall", spec.wall_seconds, "wall-clock limit in seconds");
  app.add_option("--file-mb", spec.file_mb, "largest file");
  app.add_option("--keep-fd", spec.keep_fds, "a descriptor kept open");
  app.add_option("--env", spec.env, "NAME=VALUE");
  app.add_option("--report-isolation", spec.report_isolation, "file for the isolation report");
  app.add_flag("--allow-degraded", spec.allow_degraded, "run without namespaces where the host refuses them");
  app.add_flag("--quiet", spec.quiet, "no isolation line on stderr");
  app.add_flag("--die-with-parent", spec.die_with_parent, "end when the process that started the jail dies");
  app.add_option("command", command, "the command, after --")->required();
  app.positionals_at_end();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : grading::kJailSetupFailed;
  }
  spec.uid = uid;
  spec.gid = gid;
  if (uid_base) {
    spec.uid = spec.gid = *uid_base + index.value_or(0);
  }
  for (const auto& e : spec.env)
    if (e.find('=') == std::string::npos) {
      std::fprintf(stderr, "cudalab-jail: --env takes NAME=VALUE, not %s\n", e.c_str());
      return grading::kJailSetupFailed;
    }
  return grading::run_jail(spec, command);
}
