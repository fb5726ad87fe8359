#include "leftovers.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace grading_test {

namespace fs = std::filesystem;

// Processes of a uid still alive anywhere on the machine.
int processes_of(uid_t uid) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    struct stat st {};
    if (std::isdigit(static_cast<unsigned char>(e.path().filename().string()[0])) &&
        ::stat(e.path().c_str(), &st) == 0 && st.st_uid == uid)
      ++n;
  }
  return n;
}

// System V segments, semaphores and queues of a uid (the "uid" column of each table).
int sysv_objects_of(uid_t uid) {
  int n = 0;
  for (const char* table : {"/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);
    std::istringstream head(line);
    std::vector<std::string> names;
    for (std::string w; head >> w;) names.push_back(w);
    const size_t col = size_t(std::find(names.begin(), names.end(), "uid") - names.begin());
    while (std::getline(in, line)) {
      std::istringstream l(line);
      std::vector<std::string> f;
      for (std::string w; l >> w;) f.push_back(w);
      n += col < f.size() && f[col] == std::to_string(uid);
    }
  }
  return n;
}

// POSIX message queues of a uid left in the host's IPC namespace: an mqueue file system
// mounted in a child's own mount namespace (the host's mounts stay as they are) lists them.
int posix_queues_of(uid_t uid) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("mqueue", "/tmp", "mqueue", 0, nullptr) != 0)
      _exit(255);
    int n = 0;
    std::error_code ec;
    for (fs::directory_iterator it("/tmp", ec), end; !ec && it != end; it.increment(ec)) {
      struct stat st {};
      n += ::lstat(it->path().c_str(), &st) == 0 && st.st_uid == uid;
    }
    _exit(std::min(n, 250));
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

// Files of a uid left in the host's shared scratch folders.
int scratch_files_of(uid_t uid) {
  int n = 0;
  for (const char* dir : {"/tmp", "/var/tmp", "/dev/shm"}) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      struct stat st {};
      n += ::lstat(it->path().c_str(), &st) == 0 && st.st_uid == uid;
    }
  }
  return n;
}

}  // namespace grading_test
