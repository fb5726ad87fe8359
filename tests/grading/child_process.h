// Tests of the grader start programs as a child whose stderr goes to a log, with
// something set up in the child first (a seccomp filter, a chroot): one helper for all of them.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace grading_test {

// Runs argv[0] with `args`, stderr into `log`, after `in_child` ran in the child (it may send
// stdout there too, or _exit to fail the start). Returns the exit status, or 128 + the signal.
inline int run_logged(const std::vector<std::string>& args, const std::filesystem::path& log,
                      const std::function<void()>& in_child = {}) {
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stderr);
    (void)f;
    if (in_child) in_child();
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    _exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace grading_test
