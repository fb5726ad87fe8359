#include "util.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace grading {

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr))
    throw std::runtime_error("SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

static void fill_random(unsigned char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(buf + got, n - got, 0);
    if (r < 0) throw std::runtime_error("getrandom failed");
    got += size_t(r);
  }
}

std::string random_hex(size_t n) {
  std::string bytes(n, '\0');
  fill_random(reinterpret_cast<unsigned char*>(bytes.data()), n);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

uint64_t random_u64() {
  uint64_t v;
  fill_random(reinterpret_cast<unsigned char*>(&v), sizeof v);
  return v;
}

std::optional<std::string> read_file(const fs::path& p, size_t max_bytes) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  std::string s;
  s.resize(max_bytes);
  f.read(s.data(), std::streamsize(max_bytes));
  s.resize(size_t(f.gcount()));
  return s;
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
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                c == '_' || c == '-' || c == '@';
    out += keep ? c : '_';
  }
  while (!out.empty() && out.front() == '.') out.erase(out.begin());  // no hidden files, no ".."
  if (out.empty()) out = "unnamed";
  return out.substr(0, 100);
}

std::string now_utc_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string human_seconds(double s) {
  if (s < 0) s = 0;
  long total = long(s + 0.5);
  char buf[32];
  if (total >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh %02ldm", total / 3600, (total / 60) % 60);
  else if (total >= 60)
    std::snprintf(buf, sizeof buf, "%ldm %02lds", total / 60, total % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", total);
  return buf;
}

std::string clip_text(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  size_t nl = text.rfind('\n', cut);
  if (nl != std::string_view::npos && nl > max_bytes / 2) cut = nl + 1;
  std::ostringstream o;
  o << text.substr(0, cut) << "\n[... " << (text.size() - cut) << " more bytes not shown]\n";
  return o.str();
}

}  // namespace grading
