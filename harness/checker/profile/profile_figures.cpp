// Reading the CPU backend's profile notes (profile_figures.h). The format is the emulator's
// (harness/runner/emulator/profile.cpp, take_notes): "cudalab: profile kernel NAME at PLACE key
// value ... ; line PLACE KIND key value ... ; line ...".
#include "profile_figures.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "checker/calls/printable.h"

namespace cudalab {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "key value" pairs after `from`; nullopt when a value is not a finite number in range.
std::optional<std::map<std::string, double>> numbers(const std::vector<std::string>& w, size_t from) {
  std::map<std::string, double> out;
  if ((w.size() - from) % 2 != 0) return std::nullopt;
  for (size_t i = from; i + 1 < w.size(); i += 2) {
    char* end = nullptr;
    const double v = std::strtod(w[i + 1].c_str(), &end);
    if (!end || *end || !std::isfinite(v) || v < 0 || v > 1e18) return std::nullopt;
    out[w[i]] = v;
  }
  return out;
}

std::optional<AccessKind> kind_of(const std::string& k) {
  static const std::map<std::string, AccessKind> kinds = {
      {"gload", AccessKind::GlobalLoad}, {"gstore", AccessKind::GlobalStore}, {"gatomic", AccessKind::GlobalAtomic},
      {"sload", AccessKind::SharedLoad}, {"sstore", AccessKind::SharedStore}, {"satomic", AccessKind::SharedAtomic}};
  auto it = kinds.find(k);
  return it == kinds.end() ? std::nullopt : std::optional<AccessKind>(it->second);
}

std::vector<std::string> segments(const std::string& s) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at; (at = s.find(" ; ", from)) != std::string::npos; from = at + 3)
    out.push_back(s.substr(from, at - from));
  out.push_back(s.substr(from));
  return out;
}

}  // namespace

std::optional<KernelFigures> parse_profile_note(const std::string& note) {
  const std::string head = "cudalab: profile kernel ";
  if (note.rfind(head, 0) != 0) return std::nullopt;
  const std::vector<std::string> parts = segments(note.substr(head.size()));
  const std::vector<std::string> k = words(parts[0]);
  if (k.size() < 3 || k[1] != "at") return std::nullopt;
  const auto n = numbers(k, 3);
  if (!n) return std::nullopt;
  auto get = [](const std::map<std::string, double>& m, const char* key) {
    auto it = m.find(key);
    return it == m.end() ? 0.0 : it->second;
  };
  KernelFigures f;
  f.name = printable(k[0], 100);
  f.place = printable(k[2], 300);
  f.launches = get(*n, "launches");
  f.blocks = get(*n, "blocks");
  f.largest_grid = get(*n, "largest_grid");
  f.threads = get(*n, "threads");
  f.dynamic_smem = get(*n, "dynamic_smem");
  f.static_smem = get(*n, "static_smem");
  f.barriers = get(*n, "barriers");
  f.atomic_ops = get(*n, "atomic_ops");
  f.atomic_most_on_one = get(*n, "atomic_most_on_one");
  if (f.threads > 1024 || f.largest_grid < 1) return std::nullopt;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::vector<std::string> w = words(parts[i]);
    if (w.size() < 3 || w[0] != "line") return std::nullopt;
    const auto kind = kind_of(w[2]);
    const auto m = numbers(w, 3);
    if (!kind || !m) return std::nullopt;
    LineFigures l;
    l.place = printable(w[1], 300);
    l.kind = *kind;
    l.requests = get(*m, "requests");
    l.lanes = get(*m, "lanes");
    l.lanes_possible = get(*m, "lanes_possible");
    l.units = get(*m, "units");
    l.ideal_units = get(*m, "ideal_units");
    l.bytes = get(*m, "bytes");
    // (The numbers come rounded to 9 digits: a little slack.)
    if (l.lanes > l.lanes_possible * 1.000001 + 0.5 || l.lanes_possible > 32 * l.requests * 1.000001 + 0.5)
      return std::nullopt;
    f.lines.push_back(l);
  }
  return f;
}

}  // namespace cudalab
