#include "sanitizer_digest.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "printable.h"

namespace cudalab {
namespace {

constexpr size_t kMaxFileBytes = size_t(4) << 20;  // a runner's report files are untrusted: bounded
constexpr size_t kMaxFiles = 64;

std::string with_log_path(const char* name, const std::string& dir) {
  const char* now = std::getenv(name);
  std::string v = now && *now ? std::string(now) + ":" : "";
  return std::string(name) + "=" + v + "log_path=" + dir + "/report";
}

// "#3 0x55d5 in kernel(float*) /x/lab1.cu:12:7" (ASan) or "#0 kernel(float*) /x/lab1.cu:12 (runner+0x44)"
// (TSan): the function and the file:line, when the file is a .cu of the student's (not the
// harness's, not the toolchain's).
struct Frame {
  std::string function, where;
};
bool user_frame(const std::string& line, Frame& f) {
  static const std::regex frame(R"(^\s*#\d+ (?:0x[0-9a-f]+ in )?(.+?) (\S+\.cu):(\d+)(?::\d+)?(?: \(.*\))?\s*$)");
  std::smatch m;
  if (!std::regex_match(line, m, frame)) return false;
  const std::string file = m[2].str();
  if (file.find("harness/") != std::string::npos || file.rfind("/usr/", 0) == 0) return false;
  std::string fn = m[1].str();
  if (auto paren = fn.find('('); paren != std::string::npos) fn = fn.substr(0, paren);
  f.function = fn;
  f.where = file.substr(file.find_last_of('/') + 1) + ":" + m[3].str();
  return true;
}

// "Thread T2 'CUDA thread (1,0,0) or another 97-th after it' ..." -> T2 -> "thread (1,0,0)".
std::map<std::string, std::string> thread_names(const std::vector<std::string>& lines) {
  static const std::regex named(R"(^\s*Thread (T\d+) 'CUDA thread (\(\d+,\d+,\d+\)))");
  std::map<std::string, std::string> names;
  std::smatch m;
  for (const auto& l : lines)
    if (std::regex_search(l, m, named)) names[m[1].str()] = "thread " + m[2].str() + " of a block";
  return names;
}

struct Access {
  std::string what;  // "writes", "read"
  size_t bytes = 0;
  std::string thread;  // "T2"
  Frame frame;
};

// One report: the lines from its WARNING/ERROR line to its SUMMARY line.
SanitizerFinding digest_one(const std::vector<std::string>& lines) {
  static const std::regex tsan_head(R"(WARNING: ThreadSanitizer: ([a-z -]+?)(?: \(pid=\d+\))?\s*$)");
  static const std::regex asan_head(R"(ERROR: AddressSanitizer: ([a-z-]+))");
  static const std::regex access(
      R"(^\s*(Previous )?(Write|Read|write|read|Atomic write|Atomic read|READ|WRITE) of size (\d+) at \S+(?: by (?:thread (T\d+)|main thread))?)");
  SanitizerFinding f;
  std::string tool, kind;
  std::vector<Access> accesses;
  std::string location;
  std::smatch m;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (tool.empty() && std::regex_search(l, m, tsan_head))
      tool = "ThreadSanitizer", kind = m[1].str();
    else if (tool.empty() && std::regex_search(l, m, asan_head))
      tool = "AddressSanitizer", kind = m[1].str();
    else if (std::regex_search(l, m, access)) {
      Access a;
      std::string verb = m[2].str();
      for (auto& c : verb) c = char(std::tolower(static_cast<unsigned char>(c)));
      const bool previous = m[1].matched;
      a.what =
          verb.find("write") != std::string::npos ? (previous ? "wrote" : "writes") : (previous ? "read" : "reads");
      a.bytes = std::strtoul(m[3].str().c_str(), nullptr, 10);
      a.thread = m[4].str();
      for (size_t k = i + 1; k < lines.size() && k < i + 400; ++k) {
        if (lines[k].find('#') == std::string::npos) break;  // the end of this access's stack
        if (user_frame(lines[k], a.frame)) break;
      }
      accesses.push_back(a);
    } else if (l.find("Location is TLS") != std::string::npos) {
      location = " in shared memory";  // the emulator keeps a block's shared memory per worker thread
    } else if (l.find("Location is heap block") != std::string::npos) {
      location = " in device memory";  // cudaMalloc's memory is the runner's heap
    }
  }
  if (tool.empty()) return f;
  const auto names = thread_names(lines);
  auto who = [&](const Access& a) {
    auto it = names.find(a.thread);
    return it != names.end() ? it->second : std::string("a thread");
  };
  auto at = [](const Access& a) {
    return a.frame.where.empty() ? std::string("in the harness or a library")
                                 : "at " + a.frame.where + " (" + a.frame.function + ")";
  };
  std::ostringstream text;
  if (tool == "ThreadSanitizer" && kind == "data race" && accesses.size() >= 2) {
    const Access &now = accesses[0], &before = accesses[1];
    text << "ThreadSanitizer: a data race" << location << ": " << who(now) << " " << now.what << " " << now.bytes
         << " bytes " << at(now) << " that " << who(before) << " " << before.what << " "
         << (before.frame.where == now.frame.where && !now.frame.where.empty() ? "on the same line" : at(before))
         << ", with no __syncthreads() between the two";
    f.key = tool + "|" + kind + "|" + now.frame.where + "|" + before.frame.where;
  } else {
    text << tool << ": " << kind;
    if (!accesses.empty()) text << ": " << accesses[0].what << " " << accesses[0].bytes << " bytes " << at(accesses[0]);
    f.key = tool + "|" + kind + "|" + (accesses.empty() ? "" : accesses[0].frame.where);
  }
  f.text = printable(text.str(), 400);
  f.reports = 1;
  return f;
}

}  // namespace

std::string sanitizer_full_log(const std::string& dir) { return dir + "/all-reports.txt"; }

std::vector<std::string> sanitizer_log_env(const std::string& dir) {
  return {with_log_path("TSAN_OPTIONS", dir), with_log_path("ASAN_OPTIONS", dir), with_log_path("UBSAN_OPTIONS", dir)};
}

std::vector<SanitizerFinding> digest_sanitizer_reports(const std::string& text) {
  std::vector<SanitizerFinding> out;
  std::map<std::string, size_t> index;
  // The same finding again (another pair of threads, another block): counted, not repeated.
  auto add = [&](const SanitizerFinding& f) {
    if (auto it = index.find(f.key); it != index.end()) {
      ++out[it->second].reports;
      return;
    }
    index[f.key] = out.size();
    out.push_back(f);
  };
  std::vector<std::string> report;  // the TSan or ASan report being read, line by line
  bool in_report = false;
  auto finish = [&] {
    SanitizerFinding f = digest_one(report);
    report.clear();
    in_report = false;
    if (!f.key.empty()) add(f);
  };
  // UBSan (CHECK=asan's bounds checks): one line, "lab.cu:11:9: runtime error: index 128 out of
  // bounds for type 'float [128]'", then a stack whose first frame names the function.
  static const std::regex ubsan(R"(^(?:\S*/)?([^/\s]+\.cu):(\d+):\d+: runtime error: (.*)$)");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, ubsan)) {
      if (in_report) finish();
      const std::string where = m[1].str() + ":" + m[2].str();
      SanitizerFinding f;
      f.key = "UndefinedBehaviorSanitizer|" + where + "|" + m[3].str();
      f.text = printable("UndefinedBehaviorSanitizer: " + m[3].str() + " at " + where, 400);
      f.reports = 1;
      Frame fr;
      if (std::getline(in, line) && user_frame(line, fr)) f.text = printable(f.text + " (" + fr.function + ")", 400);
      add(f);
      continue;
    }
    const bool head = line.find("WARNING: ThreadSanitizer:") != std::string::npos ||
                      line.find("ERROR: AddressSanitizer:") != std::string::npos;
    if (head && in_report) finish();
    if (head) in_report = true;
    if (in_report) report.push_back(line);
    if (in_report && line.rfind("SUMMARY: ", 0) == 0) finish();
  }
  if (in_report) finish();
  return out;
}

std::vector<SanitizerFinding> take_sanitizer_reports(const std::string& dir) {
  std::string all;
  if (DIR* d = ::opendir(dir.c_str())) {
    size_t files = 0;
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("report.", 0) != 0) continue;
      const std::string path = dir + "/" + name;
      if (files++ < kMaxFiles) {
        std::ifstream f(path, std::ios::binary);
        std::string chunk(kMaxFileBytes, '\0');
        f.read(chunk.data(), std::streamsize(chunk.size()));
        chunk.resize(size_t(f.gcount()));
        all += chunk + "\n";
        // Kept whole for whoever wants every stack (sanitizer_full_log names the file).
        std::ofstream(sanitizer_full_log(dir), std::ios::app) << chunk << "\n";
      }
      ::unlink(path.c_str());
    }
    ::closedir(d);
  }
  return digest_sanitizer_reports(all);
}

}  // namespace cudalab
