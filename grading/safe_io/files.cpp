#include "files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "secrets.h"

namespace grading {

std::optional<std::string> read_file(const fs::path& p, size_t max_bytes) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  // In pieces: a small file under a large limit costs its own size, not the limit's.
  std::string s;
  char buf[1 << 16];
  while (s.size() < max_bytes) {
    f.read(buf, std::streamsize(std::min(sizeof buf, max_bytes - s.size())));
    if (f.gcount() <= 0) break;
    s.append(buf, size_t(f.gcount()));
  }
  return s;
}

PrivateTempDir::PrivateTempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  if (const char* d = ::mkdtemp(tmpl.data())) {
    path_ = d;
    owned_ = true;
  } else {
    path_ = "/tmp";
  }
}

PrivateTempDir::~PrivateTempDir() {
  std::error_code ec;
  if (owned_) fs::remove_all(path_, ec);
}

void write_file_atomic(const fs::path& p, std::string_view content) {
  fs::create_directories(p.parent_path());
  fs::path tmp = p;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + random_hex(4);
  // Owner only: grades and feedback are nobody else's business (a caller that needs more,
  // like the student's source handed to the build user, widens it).
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp.string());
  const char* d = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, d, left);
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error("cannot write " + tmp.string());
    }
    d += n;
    left -= size_t(n);
  }
  ::fsync(fd);
  ::close(fd);
  fs::rename(tmp, p);
}

std::string safe_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                c == '-' || c == '@';
    out += keep ? c : '_';
  }
  while (!out.empty() && out.front() == '.') out.erase(out.begin());  // no hidden files, no ".."
  if (out.empty()) out = "unnamed";
  return out.substr(0, 100);
}

std::optional<std::string> read_submitted_file(const fs::path& p, size_t max_bytes, std::string* why,
                                               std::optional<uid_t> owner) {
  auto refuse = [&](const std::string& w) -> std::optional<std::string> {
    if (why) *why = w;
    return std::nullopt;
  };
  // What it is, in words, before anything is opened (a device is never opened).
  auto kind = [](mode_t m) -> std::string {
    if (S_ISLNK(m)) return "it is a symbolic link";
    if (S_ISFIFO(m)) return "it is a FIFO (a named pipe), not a file";
    if (S_ISSOCK(m)) return "it is a socket, not a file";
    if (S_ISBLK(m) || S_ISCHR(m)) return "it is a device, not a file";
    if (S_ISDIR(m)) return "it is a folder";
    return "it is not a regular file";
  };
  struct stat st {};
  if (::lstat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return refuse(kind(st.st_mode));
  int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return refuse(errno == ELOOP ? "it is a symbolic link" : "it cannot be opened");
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return refuse(kind(st.st_mode));
  }
  // A hard link to a file of someone else (/etc/shadow, a classmate's work) has more than one
  // name; the submitter's own files are theirs.
  if (st.st_nlink > 1 && (!owner || st.st_uid != *owner)) {
    ::close(fd);
    return refuse("it is a hard link to a file elsewhere");
  }
  if (uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    char size[96];
    std::snprintf(size, sizeof size, "it is %.1f MB, more than the %.1f MB a lab file may be",
                  double(st.st_size) / 1048576.0, double(max_bytes) / 1048576.0);
    return refuse(size);
  }
  std::string s(size_t(st.st_size), '\0');
  size_t got = 0;
  while (got < s.size()) {
    ssize_t n = ::read(fd, s.data() + got, s.size() - got);
    if (n <= 0) break;
    got += size_t(n);
  }
  ::close(fd);
  s.resize(got);
  return s;
}

}  // namespace grading
