#include "source_text.h"

#include <cstdint>

namespace grading {
namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

bool decode_utf16(const std::string& b, size_t start, bool little, std::string& out) {
  if ((b.size() - start) % 2) return false;
  auto unit = [&](size_t i) {
    unsigned char x = static_cast<unsigned char>(b[i]), y = static_cast<unsigned char>(b[i + 1]);
    return little ? uint32_t(x | (y << 8)) : uint32_t((x << 8) | y);
  };
  for (size_t i = start; i < b.size(); i += 2) {
    uint32_t u = unit(i);
    if (u >= 0xD800 && u < 0xDC00) {
      if (i + 3 >= b.size()) return false;
      uint32_t lo = unit(i + 2);
      if (lo < 0xDC00 || lo >= 0xE000) return false;
      append_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
      i += 2;
    } else if (u >= 0xDC00 && u < 0xE000) {
      return false;
    } else {
      append_utf8(out, u);
    }
  }
  return true;
}

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

}  // namespace

SourceText normalize_source(const std::string& bytes, size_t max_bytes) {
  SourceText r;
  if (bytes.size() > max_bytes) {
    r.problem = "Your file is " + std::to_string(bytes.size() / 1024) + " KiB; a lab file is text of at most " +
                std::to_string(max_bytes / 1024) + " KiB. Did you upload a compiled program or an archive?";
    return r;
  }
  if (bytes.empty()) {
    r.problem = "Your lab file is empty.";
    return r;
  }
  std::string text;
  auto starts = [&](const char* bom, size_t n) { return bytes.size() >= n && bytes.compare(0, n, bom, n) == 0; };
  if (starts("\xEF\xBB\xBF", 3)) {
    text = bytes.substr(3);
    r.notes.push_back("Your file starts with a byte-order mark; it was removed before compiling.");
  } else if (starts("\xFF\xFE", 2) || starts("\xFE\xFF", 2)) {
    if (!decode_utf16(bytes, 2, bytes[0] == '\xFF', text)) {
      r.problem = "Your file says it is UTF-16 but is not valid UTF-16. Save it as UTF-8 text.";
      return r;
    }
    r.notes.push_back(
        "Your file was saved as UTF-16; it was converted to UTF-8 before compiling. Save it as UTF-8 next time.");
  } else {
    text = bytes;
  }
  // A NUL byte never appears in source text: this is a compiled program, an archive, a PDF...
  if (text.find('\0') != std::string::npos) {
    r.problem =
        "Your lab file is not text (it looks like a compiled program, an archive or a document). "
        "Upload the .cu source file itself.";
    return r;
  }
  if (!valid_utf8(text)) {
    // Most likely Latin-1 or Windows-1252 accents in comments: read as Latin-1.
    std::string converted;
    for (unsigned char c : text) append_utf8(converted, c);
    text = std::move(converted);
    r.notes.push_back(
        "Your file is not UTF-8 (probably Latin-1 or Windows-1252); it was read as Latin-1. "
        "Save it as UTF-8 next time.");
  }
  if (text.find('\r') != std::string::npos) {
    std::string lf;
    lf.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\r') {
        lf += '\n';
        if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      } else {
        lf += text[i];
      }
    }
    text = std::move(lf);
    r.notes.push_back("Your file has Windows (CRLF) line ends; they were converted before compiling.");
  }
  r.ok = true;
  r.text = std::move(text);
  return r;
}

}  // namespace grading
