#include "discover.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "safe_io/files.h"
#include "safe_io/text.h"

namespace grading {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Inside a student's folder: hidden files and archivers' leftovers are not candidates.
bool skipped_name(const std::string& name) { return name.empty() || name[0] == '.' || name == "__MACOSX"; }

// At the top: what an archiver or a file manager leaves, never a student. Any other hidden
// name (a folder called "..." or ".bob") is a student's, with a note.
bool junk_name(const std::string& name) {
  return name.empty() || name == "." || name == ".." || name == "__MACOSX" || name == ".DS_Store" || name == ".git" ||
         name.rfind("._", 0) == 0;
}

bool is_source_name(const std::string& name) {
  std::string ext = lower(fs::path(name).extension().string());
  return ext == ".cu";
}

// Regular files under `dir`, not following links (a link could point anywhere on the
// grader's machine), a few levels deep.
std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (skipped_name(name)) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it.depth() > 4) {
      it.disable_recursion_pending();
      continue;
    }
    // Regular files, and special ones (links, FIFOs, devices, sockets) too: if one of them is
    // the lab file, reading it refuses it with the reason. Folders are walked, never links.
    const auto type = it->symlink_status(ec).type();
    if (type != fs::file_type::directory && type != fs::file_type::not_found && type != fs::file_type::none)
      out.push_back(it->path());
    if (out.size() > 2000) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string list_names(const std::vector<fs::path>& files, const fs::path& base) {
  std::string s;
  for (size_t i = 0; i < files.size() && i < 8; ++i) {
    if (!s.empty()) s += ", ";
    s += fs::relative(files[i], base).string();
  }
  if (files.size() > 8) s += ", and " + std::to_string(files.size() - 8) + " more";
  return s;
}

// Picks the lab file among a student's files, or says why none can be picked.
void choose_file(Submission& s, const fs::path& dir, const std::vector<fs::path>& files, const DiscoverOptions& opt) {
  if (files.empty()) {
    s.problem = "Your submission is empty: we found no files in it. Upload your " + opt.lab_file_name + ".";
    return;
  }
  std::vector<fs::path> exact, named, sources;
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    if (lower(name) == lower(opt.lab_file_name)) exact.push_back(f);
    if (names_lab(name, opt.lab)) named.push_back(f);
    // A .cu file named for another lab ("lab30.cu" in lab 3) is not this lab's fallback.
    static const std::regex any_lab("(^|[^a-zA-Z])lab[ _-]?[0-9]+", std::regex::icase);
    if (is_source_name(name) && !std::regex_search(name, any_lab)) sources.push_back(f);
  }
  auto take = [&](const fs::path& f) { s.file = f; };
  auto several = [&](const std::vector<fs::path>& c) {
    s.problem = "We found more than one file that could be your lab " + std::to_string(opt.lab) + ": " +
                list_names(c, dir) + ". Submit exactly one, named " + opt.lab_file_name + ".";
  };
  if (exact.size() == 1) return take(exact[0]);
  if (exact.size() > 1) return several(exact);
  if (named.size() == 1) return take(named[0]);
  if (named.size() > 1) {
    std::vector<fs::path> named_sources;
    for (const auto& f : named)
      if (is_source_name(f.filename().string())) named_sources.push_back(f);
    if (named_sources.size() == 1) {
      take(named_sources[0]);
      s.notes.push_back("Graded " + named_sources[0].filename().string() + "; the other files were not looked at.");
      return;
    }
    return several(named_sources.empty() ? named : named_sources);
  }
  if (sources.size() == 1) {
    take(sources[0]);
    s.notes.push_back("Graded " + sources[0].filename().string() + ", the only .cu file in your submission. Name it " +
                      opt.lab_file_name + " next time.");
    return;
  }
  if (sources.size() > 1) return several(sources);
  s.problem = "We found no lab " + std::to_string(opt.lab) +
              " file in your submission (it has: " + list_names(files, dir) + "). Upload your " + opt.lab_file_name +
              ".";
}

// "alice_lab3.cu" -> "alice"; "" when the name has nothing before the lab token.
std::string student_of_flat_file(const std::string& name, int lab) {
  size_t at = 0;
  if (!names_lab(name, lab, &at)) return "";
  std::string s = name.substr(0, at);
  while (!s.empty() && (s.back() == '_' || s.back() == '-' || s.back() == '.' || s.back() == ' ')) s.pop_back();
  return s;
}

// Makes every student name unique and keeps the grader's own names free: a repeated name
// (a folder "alice" and a file "alice_lab3.cu") becomes "alice-2", or "alice-3" when a real
// "alice-2" exists, and so on. `subs` is sorted, so the same input always gets the same names.
void make_names_unique(std::vector<Submission>& subs) {
  const std::set<std::string> reserved = {kReferenceFolder, kStubFolder};
  std::set<std::string> taken = reserved;
  for (const auto& s : subs) taken.insert(s.student);  // real names come first
  std::set<std::string> given;
  for (auto& s : subs) {
    if (!reserved.count(s.student) && given.insert(s.student).second) continue;
    for (int n = 2;; ++n) {
      std::string candidate = s.student + "-" + std::to_string(n);
      if (taken.insert(candidate).second) {
        s.student = candidate;
        given.insert(candidate);
        break;
      }
    }
  }
}

}  // namespace

bool names_lab(const std::string& file_name, int lab, size_t* token_at, size_t* token_len) {
  static const std::regex token("lab[ _-]?0*([0-9]+)", std::regex::icase);
  for (std::sregex_iterator it(file_name.begin(), file_name.end(), token), end; it != end; ++it) {
    if (std::stoi((*it)[1].str().substr(0, 6)) != lab) continue;
    size_t at = size_t(it->position(0));
    // "lab3" inside a longer word ("collab3") is not the lab token.
    if (at > 0 && std::isalpha(static_cast<unsigned char>(file_name[at - 1]))) continue;
    if (token_at) *token_at = at;
    if (token_len) *token_len = size_t(it->length(0));
    return true;
  }
  return false;
}

Discovery discover(const fs::path& root, const DiscoverOptions& opt) {
  Discovery d;
  std::error_code ec;
  std::vector<Submission> subs;

  const bool gradescope_root = root.filename() == "submission";
  // A folder holding only submission/ (Gradescope's /autograder layout); a student who is
  // literally called "submission" among others is just a student.
  bool gradescope_child = fs::is_directory(root / "submission", ec);
  if (gradescope_child)
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec) && it->path().filename() != "submission" && !skipped_name(it->path().filename()))
        gradescope_child = false;
  if (gradescope_root || gradescope_child) {
    // Gradescope hands one student's files in a folder named submission/.
    fs::path dir = gradescope_root ? root : root / "submission";
    Submission s;
    s.student = safe_name(opt.single_student);
    s.origin = dir;
    choose_file(s, dir, files_under(dir), opt);
    s.index = 1;
    d.submissions.push_back(s);
    make_names_unique(d.submissions);
    return d;
  }

  std::map<std::string, std::vector<fs::path>> flat;  // student -> their flat files
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec))
    entries.push_back(*it);
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
  for (const auto& e : entries) {
    const std::string name = e.path().filename().string();
    if (junk_name(name)) {
      if (!name.empty() && name != "." && name != "..") d.ignored.push_back(name);
      continue;
    }
    const auto type = e.symlink_status(ec).type();
    if (type == fs::file_type::directory) {
      Submission s;
      s.student = safe_name(name);
      s.origin = e.path();
      if (name[0] == '.')
        s.notes.push_back("Your folder is named `" + clean_text(name.substr(0, 80)) +
                          "`, which hides it; it was graded as `" + s.student + "`.");
      choose_file(s, e.path(), files_under(e.path()), opt);
      subs.push_back(s);
    } else {
      // A flat file (or what is named like one): a regular file is a submission; a special
      // one (a link, a FIFO, a device) is never read, and its student is told so.
      std::string student = student_of_flat_file(name, opt.lab);
      if (student.empty())
        d.ignored.push_back(name);
      else
        flat[student].push_back(e.path());  // reading it refuses a special file, with the reason
    }
  }
  for (auto& [student, files] : flat) {
    Submission s;
    s.student = safe_name(student);
    s.origin = files.front();
    if (files.size() == 1)
      s.file = files.front();
    else
      s.problem = "We found more than one file that could be your lab " + std::to_string(opt.lab) + ": " +
                  list_names(files, root) + ". Submit exactly one.";
    subs.push_back(s);
  }
  // Two origins with one safe name (a folder "alice" and a file "alice_lab3.cu") stay apart.
  std::stable_sort(subs.begin(), subs.end(), [](const auto& a, const auto& b) { return a.student < b.student; });
  make_names_unique(subs);
  std::sort(subs.begin(), subs.end(), [](const auto& a, const auto& b) { return a.student < b.student; });
  for (size_t i = 0; i < subs.size(); ++i) subs[i].index = unsigned(i + 1);
  d.submissions = std::move(subs);
  return d;
}

}  // namespace grading
