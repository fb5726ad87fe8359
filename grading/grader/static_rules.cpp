#include "static_rules.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace grading {
namespace {

size_t line_of(const std::string& text, size_t pos) {
  return size_t(std::count(text.begin(), text.begin() + long(pos), '\n')) + 1;
}

std::string at_line(const std::string& text, size_t pos) {
  return " (line " + std::to_string(line_of(text, pos)) + ")";
}

bool forbids(const std::vector<std::string>& f, const char* lib) {
  return std::find(f.begin(), f.end(), lib) != f.end();
}

const char* library_title(const std::string& lib) {
  if (lib == "cub") return "CUB";
  if (lib == "thrust") return "Thrust";
  return "cuBLAS";
}

std::string library_reason(const std::string& lib, const std::string& what) {
  return std::string("Your file uses ") + library_title(lib) + " (" + what +
         "). This lab asks you to write the kernel yourself, so library calls that do the work are not accepted.";
}

// Backslash-newline pairs removed, as the compiler does before anything else (translation
// phase 2: `#inc\<newline>lude` is an #include, and a `/\<newline>/` starts a comment). The
// newlines taken out are put back at the end of the logical line, so every later line keeps
// its number; `splices` keeps where each was.
std::string splice_lines(const std::string& text, std::vector<size_t>& splices) {
  std::string out;
  out.reserve(text.size());
  size_t pending = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      splices.push_back(out.size());
      ++pending;
      ++i;
      continue;
    }
    out += text[i];
    if (text[i] == '\n') out.append(pending, '\n'), pending = 0;
  }
  return out;
}

bool is_source_file(const std::string& name) {
  static const std::regex source(R"(\.(cu|cpp|cc|cxx|c\+\+|c)$)", std::regex::icase);
  return std::regex_search(name, source);
}

// Why a submission may not include `target` ("" when it may). The build's include paths
// (-Iharness/include and the harness's own folders) would otherwise reach the reference
// solutions through "..", and the harness's sources by name.
std::string include_problem(const std::string& target) {
  if (target.empty()) return "the name of the file to include is missing";
  if (target[0] == '/' || target[0] == '\\') return "an absolute path reaches outside your lab file";
  std::vector<std::string> parts;
  std::string part;
  for (char c : target + "/") {
    if (c == '/' || c == '\\') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else {
      part += char(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  for (const auto& x : parts) {
    if (x == "..") return "a path with `..` reaches outside your lab file";
    if (x == "solutions" || x == "labs" || x == "harness" || x == "grading") return "it names the course's own files";
  }
  if (is_source_file(target)) return "only your lab file is graded, so it cannot include another source file";
  static const std::regex lab_name(R"((^|[^a-z])lab[ _-]?[0-9]+)");
  if (!parts.empty() && parts.front() != "cudalab" && std::regex_search(parts.back(), lab_name))
    return "it names a lab's file";
  return "";
}

// Every #include (also written %:include, #include_next or #import) must name a header
// outright: a name built by a macro cannot be checked, so it is refused too.
void check_includes(const std::string& code_with_strings, std::vector<Rejection>& out) {
  std::vector<size_t> splices;
  const std::string text = splice_lines(code_with_strings, splices);
  static const std::regex directive(R"((^|\n)[ \t]*(#|%:)[ \t]*(include_next|include|import)\b[ \t]*([^\n]*))");
  for (std::sregex_iterator it(text.begin(), text.end(), directive), end; it != end; ++it) {
    const auto& m = *it;
    std::string rest = m[4].str();
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
    std::string target, why;
    const char close = rest.empty() ? 0 : rest[0] == '<' ? '>' : rest[0] == '"' ? '"' : 0;
    const size_t end_at = close ? rest.find(close, 1) : std::string::npos;
    if (end_at == std::string::npos) {
      target = rest;
      why = "the file to include must be written out in quotes or <>, not made by a macro";
    } else {
      target = rest.substr(0, end_at + 1);
      why = include_problem(rest.substr(1, end_at - 1));
    }
    if (why.empty()) continue;
    const size_t pos = size_t(m.position(4));
    const size_t line =
        line_of(text, pos) + size_t(std::upper_bound(splices.begin(), splices.end(), pos) - splices.begin());
    out.push_back({"include_path",
                   "Your file includes `" + target.substr(0, 120) + "` (line " + std::to_string(line) + "): " + why +
                       ". A lab file may include its lab's header (\"cudalab/...\") "
                       "and system headers such as <cstdio> or <cuda_runtime.h>; please remove that line."});
    return;  // one is enough to explain the rule
  }
}

}  // namespace

// Whether the R at `i` starts a raw string: alone, or after the encoding prefixes u8, u, U
// or L (u8R"(...)" is a raw string too), not inside a longer identifier.
static bool raw_string_prefix_ok(const std::string& t, size_t i) {
  size_t start = i;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(t[start - 1])) || t[start - 1] == '_')) --start;
  const std::string prefix = t.substr(start, i - start);
  return prefix.empty() || prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L";
}

std::string strip_comments(const std::string& t, bool strings_too) {
  std::string out;
  out.reserve(t.size());
  size_t i = 0;
  while (i < t.size()) {
    char c = t[i];
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i < t.size() && t[i] != '\n') {
        // A line comment ending in a backslash continues on the next line.
        if (t[i] == '\\' && i + 1 < t.size() && t[i + 1] == '\n') {
          out += '\n';
          i += 2;
          continue;
        }
        ++i;
      }
      out += ' ';
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      i += 2;
      while (i < t.size() && !(t[i] == '*' && i + 1 < t.size() && t[i + 1] == '/')) {
        if (t[i] == '\n') out += '\n';
        ++i;
      }
      i += 2;
      out += ' ';
    } else if (c == 'R' && i + 1 < t.size() && t[i + 1] == '"' && raw_string_prefix_ok(t, i)) {
      // Raw string R"delim( ... )delim"
      size_t open = t.find('(', i + 2);
      if (open == std::string::npos) {
        out += c;
        ++i;
        continue;
      }
      std::string close = ")" + t.substr(i + 2, open - i - 2) + "\"";
      size_t end = t.find(close, open + 1);
      end = end == std::string::npos ? t.size() : end + close.size();
      if (strings_too) {
        out += "R\"\"";
        for (size_t k = i; k < end; ++k)
          if (t[k] == '\n') out += '\n';
      } else {
        out.append(t, i, end - i);
      }
      i = end;
    } else if (c == '"' || c == '\'') {
      // A quote between digits is a digit separator (1'000'000), not a literal.
      if (c == '\'' && i > 0 && std::isxdigit(static_cast<unsigned char>(t[i - 1])) && i + 1 < t.size() &&
          std::isxdigit(static_cast<unsigned char>(t[i + 1]))) {
        out += c;
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < t.size() && t[j] != c && t[j] != '\n') j += (t[j] == '\\') ? 2 : 1;
      j = std::min(j + 1, t.size());
      if (strings_too) {
        out += c;
        out += c;
      } else {
        out.append(t, i, j - i);
      }
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::vector<Rejection> check_source(const std::string& raw_text, const std::vector<std::string>& forbidden) {
  std::vector<Rejection> out;
  std::vector<size_t> splices;
  const std::string text = splice_lines(raw_text, splices);  // phase 2 first, as the compiler
  const std::string code_with_strings = strip_comments(text, false);  // #include "..." names survive
  const std::string code = strip_comments(text, true);
  std::smatch m;

  check_includes(code_with_strings, out);

  // __has_include asks the compiler whether a file exists, and so does `#pragma GCC dependency`
  // (an error when the file is missing, a warning when it is newer; also as _Pragma("...")):
  // a lab file has no question to ask.
  static const std::regex probe(R"(\b__has_include(_next)?\b)");
  static const std::regex dependency(R"(\bGCC\s+dependency\b)");
  auto asks = [&](const std::string& text, const std::regex& question) {
    if (!std::regex_search(text, m, question)) return false;
    out.push_back(
        {"include_probe",
         "Your file asks whether files exist (`" + m.str(0) + "`" + at_line(text, size_t(m.position(0))) +
             "). A lab file includes its lab's header and system headers it knows are there; please remove it."});
    return true;
  };
  if (!asks(code, probe)) asks(code_with_strings, dependency);
  // #line (or its GNU form "# 12 \"file\"") makes the compiler name other files in its messages.
  static const std::regex line_directive(R"((^|\n)[ \t]*(#|%:)[ \t]*(line\b|[0-9]))");
  if (std::regex_search(code_with_strings, m, line_directive))
    out.push_back(
        {"line_directive", "Your file uses a `#line` directive" + at_line(code_with_strings, size_t(m.position(2))) +
                               ". It changes the file names and lines the compiler reports; please remove it."});

  static const std::regex main_def(R"((^|[^\w.>:])main\s*\()");
  if (std::regex_search(code, m, main_def))
    out.push_back({"defines_main",
                   "Your file defines main" + at_line(code, size_t(m.position(0))) +
                       ". The harness provides main; a lab file only defines the lab's function. Remove your main."});

  // Code placed to run before main (prioritized constructors, init sections) could run
  // before the harness is ready, which lab code never needs.
  static const std::regex early(
      R"(\b(constructor|init_priority)\s*\(\s*\d|\bsection\s*\(\s*"?\.?(pre)?init_array|\.(pre)?init_array|\.ctors)");
  if (std::regex_search(code_with_strings, m, early))
    out.push_back({"early_code", "Your file asks for code to run before main (`" + m.str(0) + "`" +
                                     at_line(code_with_strings, size_t(m.position(0))) +
                                     "). Lab code does not need that; remove it."});

  struct LibPattern {
    const char* lib;
    std::regex include, use;
  };
  static const LibPattern libs[] = {
      {"cub", std::regex(R"(#\s*include\s*[<"]\s*cub/)"), std::regex(R"(\bcub\s*::)")},
      {"thrust", std::regex(R"(#\s*include\s*[<"]\s*thrust/)"), std::regex(R"(\bthrust\s*::)")},
      {"cublas", std::regex(R"(#\s*include\s*[<"]\s*cublas)"), std::regex(R"(\bcublas\w*)")},
  };
  for (const auto& lib : libs) {
    if (!forbids(forbidden, lib.lib)) continue;
    if (std::regex_search(code_with_strings, m, lib.include))
      out.push_back({"forbidden_library",
                     library_reason(lib.lib, "#include" + at_line(code_with_strings, size_t(m.position(0))))});
    else if (std::regex_search(code, m, lib.use))
      out.push_back(
          {"forbidden_library", library_reason(lib.lib, "`" + m.str(0) + "`" + at_line(code, size_t(m.position(0))))});
  }
  return out;
}

std::vector<std::string> parse_dependencies(const std::string& deps) {
  std::vector<std::string> files;
  const size_t colon = deps.find(": ");
  if (colon == std::string::npos) return files;
  std::string cur;
  for (size_t i = colon + 2; i < deps.size(); ++i) {
    const char c = deps[i];
    if (c == '\\' && i + 1 < deps.size() && deps[i + 1] == '\n') {
      ++i;
      if (!cur.empty()) files.push_back(cur), cur.clear();
      continue;
    }
    if (c == '\\' && i + 1 < deps.size() && (deps[i + 1] == ' ' || deps[i + 1] == '#')) {
      cur += deps[++i];
      continue;
    }
    if (c == '$' && i + 1 < deps.size() && deps[i + 1] == '$') {
      cur += '$';
      ++i;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t') {
      if (!cur.empty()) files.push_back(cur), cur.clear();
      if (c == '\n') break;  // the first rule is the object's; -MP's empty rules follow
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) files.push_back(cur);
  return files;
}

std::vector<Rejection> check_compiler_view(const std::string& expanded, const std::string& deps,
                                           const std::string& source, const std::vector<std::string>& allowed_roots) {
  std::vector<Rejection> out;
  const std::vector<std::string> opened = parse_dependencies(deps);
  auto allowed = [&](const std::string& f) {
    if (f == source) return true;
    if (f.find("/../") != std::string::npos) return false;
    for (const auto& root : allowed_roots)
      if (f.rfind(root, 0) == 0) return true;
    return false;
  };
  auto shown = [](const std::string& f) { return std::filesystem::path(f).filename().string().substr(0, 80); };
  for (const auto& f : opened)
    if (!allowed(f)) {
      out.push_back(
          {"include_path",
           "Your file makes the compiler read `" + shown(f) +
               "`, which is not your lab's header or a system header. A lab file may include its lab's header "
               "(\"cudalab/...\") and system headers such as <cstdio>; please remove that #include."});
      return out;
    }

  // Line markers: "# 12 \"file\" flags". Any file not opened came from a #line.
  static const std::regex marker(R"re(^# [0-9]+ "((?:[^"\\]|\\.)*)")re");
  std::string current;
  size_t current_line = 0;
  std::istringstream in(expanded);
  // Attributes whose string the compiler hands to the assembler as it is: a newline or a `;`
  // in a section name (or a symbol version, or a weakref's target) starts a directive of its
  // own, `.incbin "file"` among them, with no asm keyword anywhere. Lab code needs none of them.
  // (alias and ifunc name a symbol the compiler must know, so their strings are checked.)
  static const std::regex assembler_string(R"(\b(__)?(section|symver|weakref)(__)?\s*\(\s*(u8|u|U|L)?")");
  std::string lab_code;  // the lab file's expanded lines, strings emptied
  std::vector<size_t> lab_lines;  // the line of each
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.rfind("# ", 0) == 0 && std::regex_search(line, m, marker)) {
      current = m[1].str();
      current_line = size_t(std::stoul(line.substr(2))) - 1;
      if (current != source && current != "<built-in>" && current != "<command-line>" &&
          std::find(opened.begin(), opened.end(), current) == opened.end()) {
        out.push_back(
            {"line_directive", "Your file uses a `#line` directive naming `" + shown(current) +
                                   "`. It changes the file names and lines the compiler reports; please remove it."});
        return out;
      }
      continue;
    }
    ++current_line;
    if (current != source) continue;
    // Assembly itself is no rule here (inline PTX is honest GPU code): what host assembly could
    // do, the operating system stops (the runner's system-call filter, the build's view of the
    // course, which holds no solution) and the link contract names (a system-call instruction).
    const std::string code = strip_comments(line, true);
    lab_code += code + "\n";
    lab_lines.push_back(current_line);
  }
  // Over the lab file's lines together: an attribute may be written across lines.
  std::smatch m;
  if (std::regex_search(lab_code, m, assembler_string)) {
    const size_t nth = size_t(std::count(lab_code.begin(), lab_code.begin() + m.position(0), '\n'));
    const std::string what = m[1].str() + m[2].str() + m[3].str();
    out.push_back(
        {"inline_asm", "Your file gives the assembler a string of its own (`" + what + "(\"...\")`, line " +
                           std::to_string(lab_lines[nth]) +
                           "), perhaps through a macro. Please remove that attribute: "
                           "its text reaches the assembler as it is, so it could carry assembly, which the grader does "
                           "not accept."});
  }
  return out;
}

std::vector<Rejection> check_object(const std::string& nm_output, const std::string& sections,
                                    const std::vector<std::string>& forbidden) {
  std::vector<Rejection> out;
  auto add = [&](const char* rule, const std::string& reason) {
    for (const auto& r : out)
      if (r.rule == rule) return;  // one reason per rule is enough
    out.push_back({rule, reason});
  };
  static const std::regex line_re(R"(^(.*) ([A-Za-z?]) *([0-9a-fA-F]*) *([0-9a-fA-F]*)\s*$)");
  std::istringstream in(nm_output);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, line_re)) continue;
    const std::string name = m[1].str();
    const char type = m[2].str()[0];
    const bool strong_definition = type == 'T' || type == 'D' || type == 'B' || type == 'R';
    if (strong_definition && name == "main")
      add("defines_main",
          "Your file defines main. The harness provides main; a lab file only defines the lab's function.");
    for (const char* lib : {"cub", "thrust", "cublas"}) {
      if (!forbids(forbidden, lib)) continue;
      const std::string ns = std::string(lib) + "::";
      bool uses = std::string(lib) == "cublas" ? name.rfind("cublas", 0) == 0 : name.find(ns) != std::string::npos;
      if (uses) add("forbidden_library", library_reason(lib, name.substr(0, 80)));
    }
  }
  static const std::regex early_section(R"(\]\s+(\.preinit_array|\.init_array\.\d+|\.ctors\.\d+)\s)");
  std::smatch m;
  if (std::regex_search(sections, m, early_section))
    add("early_code", "Your compiled file has code that runs before main (section " + m[1].str() +
                          "). Lab code does not need that; remove it.");
  return out;
}

}  // namespace grading
