#include "secrets.h"

#include <openssl/evp.h>
#include <sys/random.h>

#include <cerrno>
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

}  // namespace grading
