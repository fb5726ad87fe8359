#include "rubric.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

namespace grading {

double Rubric::points_for(const std::string& id) const {
  auto it = check_points.find(id);
  return it == check_points.end() ? default_check_points : it->second;
}

std::vector<std::string> Rubric::unknown_checks(const std::vector<std::string>& check_ids) const {
  const std::set<std::string> real(check_ids.begin(), check_ids.end());
  std::set<std::string> unknown;
  for (const auto& [id, points] : check_points)
    if (!real.count(id)) unknown.insert(id);
  for (const auto& id : hidden)
    if (!real.count(id)) unknown.insert(id);
  return {unknown.begin(), unknown.end()};
}

double Rubric::speed_fraction_vs_reference(double ratio) const {
  if (!(ratio > 0) || ratio >= zero_at) return 0;
  if (ratio <= full_at) return 1;
  return curve == "linear" ? (zero_at - ratio) / (zero_at - full_at)
                           : (std::log(zero_at) - std::log(ratio)) / (std::log(zero_at) - std::log(full_at));
}

double Rubric::speed_fraction_vs_naive(double speedup, double reference_speedup) const {
  // Full points from here: the reference's speed-up, less the slack full_at allows for noise.
  const double target = reference_speedup / full_at;
  if (!(speedup > 1)) return 0;
  if (speedup >= target) return 1;
  return curve == "linear" ? (speedup - 1) / (target - 1) : std::log(speedup) / std::log(target);
}

double Rubric::speed_points_for(double fraction) const {
  if (speed_points <= 0 || !(fraction > 0)) return 0;
  return std::min(speed_points, step * std::round(speed_points * std::min(1.0, fraction) / step));
}

Rubric parse_rubric(const std::string& text, const std::string& source_name) {
  toml::table t;
  try {
    t = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    std::string where;
    if (e.source().begin) where = " at line " + std::to_string(e.source().begin.line);
    throw RubricError(source_name + where + ": " + std::string(e.description()));
  }
  Rubric r;
  r.path = source_name;
  auto fail = [&](const std::string& what) { throw RubricError(source_name + ": " + what); };
  auto number = [&](toml::node_view<toml::node> n, const std::string& key, double fallback) {
    if (!n) return fallback;
    if (auto v = n.value<double>()) return *v;
    fail(key + " must be a number");
    return fallback;
  };

  r.lab = int(number(t["lab"], "lab", 0));
  if (r.lab < 1 || r.lab > 99) fail("lab must name the lab's number, e.g. lab = 3");

  r.default_check_points = number(t["checks"]["default_points"], "checks.default_points", 1);
  if (auto* pts = t["checks"]["points"].as_table()) {
    for (auto& [k, v] : *pts) {
      auto d = v.value<double>();
      if (!d || *d < 0) fail("checks.points." + std::string(k.str()) + " must be a number of points >= 0");
      r.check_points[std::string(k.str())] = *d;
    }
  }
  if (auto* hidden = t["checks"]["hidden"].as_array()) {
    for (auto& h : *hidden) {
      auto s = h.value<std::string>();
      if (!s) fail("checks.hidden must be a list of check ids");
      r.hidden.insert(*s);
    }
  }
  r.speed_points = number(t["speed"]["points"], "speed.points", 0);
  r.anchor = t["speed"]["anchor"].value_or(std::string("naive"));
  if (r.anchor != "naive" && r.anchor != "reference") fail("speed.anchor must be \"naive\" or \"reference\"");
  r.full_at = number(t["speed"]["full_points_at"], "speed.full_points_at", r.full_at);
  r.zero_at = number(t["speed"]["no_points_at"], "speed.no_points_at", 10);
  r.curve = t["speed"]["curve"].value_or(std::string("log"));
  r.step = number(t["speed"]["step"], "speed.step", r.step);
  if (!(r.step > 0)) fail("speed.step must be > 0 (points are given in steps of it)");
  if (r.speed_points < 0) fail("speed.points must be >= 0");
  if (!(r.full_at >= 1 && r.zero_at > r.full_at)) fail("speed needs 1 <= full_points_at < no_points_at");
  if (r.curve != "log" && r.curve != "linear") fail("speed.curve must be \"log\" or \"linear\"");
  if (auto* forbid = t["rules"]["forbid"].as_array()) {
    for (auto& f : *forbid) {
      auto s = f.value<std::string>();
      if (!s || (*s != "cub" && *s != "thrust" && *s != "cublas"))
        fail("rules.forbid may list \"cub\", \"thrust\" and \"cublas\"");
      r.forbid.push_back(*s);
    }
  }
  auto& L = r.limits;
  L.build_seconds = number(t["limits"]["build_seconds"], "limits.build_seconds", L.build_seconds);
  L.run_seconds = number(t["limits"]["run_seconds"], "limits.run_seconds", L.run_seconds);
  L.check_seconds = number(t["limits"]["check_seconds"], "limits.check_seconds", L.check_seconds);
  L.memory_mb = uint64_t(number(t["limits"]["memory_mb"], "limits.memory_mb", double(L.memory_mb)));
  L.file_mb = uint64_t(number(t["limits"]["file_mb"], "limits.file_mb", double(L.file_mb)));
  L.processes = uint64_t(number(t["limits"]["processes"], "limits.processes", double(L.processes)));
  L.output_kb = uint64_t(number(t["limits"]["output_kb"], "limits.output_kb", double(L.output_kb)));
  L.emulator_largest =
      uint64_t(number(t["limits"]["emulator_largest"], "limits.emulator_largest", double(L.emulator_largest)));
  if (L.build_seconds <= 0 || L.run_seconds <= 0 || L.check_seconds <= 0 || L.emulator_largest == 0)
    fail("limits must be positive");
  return r;
}

Rubric load_rubric(const std::filesystem::path& path) {
  std::ifstream f(path);
  if (!f) throw RubricError("cannot read the rubric " + path.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_rubric(ss.str(), path.string());
}

}  // namespace grading
