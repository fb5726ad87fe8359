#include "text.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>

namespace grading {

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

std::string clean_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t') {
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += '?';
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
      out += '?';  // C1 controls (U+0080..U+009F), the 8-bit CSI among them
      ++i;
    } else if (c == 0xe2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
               ((static_cast<unsigned char>(text[i + 2]) >= 0xaa && static_cast<unsigned char>(text[i + 2]) <= 0xae) ||
                static_cast<unsigned char>(text[i + 2]) == 0xa8 || static_cast<unsigned char>(text[i + 2]) == 0xa9)) {
      out += '?';  // bidi embeddings and overrides, line and paragraph separators
      i += 2;
    } else if (c == 0xe2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x81 &&
               static_cast<unsigned char>(text[i + 2]) >= 0xa6 && static_cast<unsigned char>(text[i + 2]) <= 0xa9) {
      out += '?';  // bidi isolates
      i += 2;
    } else {
      out += char(c);
    }
  }
  return out;
}

std::string clean_line(std::string_view text) {
  std::string s = clean_text(text);
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s;
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
