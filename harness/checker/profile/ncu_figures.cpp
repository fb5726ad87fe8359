// Reading Nsight Compute's raw CSV page (ncu_figures.h). The first row names the columns (metric
// names), the second gives units (with --print-units base: "sector", "request", "%", ...), then a
// row per profiled kernel launch. A metric the GPU or ncu version lacks is simply absent.
#include "ncu_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

namespace cudalab {
namespace {

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(cell), cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(cell), cell.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (!cell.empty() || !rows.back().empty()) rows.back().push_back(cell);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

std::optional<double> number(const std::string& s) {
  std::string t;
  for (char c : s)
    if (c != ',' && c != ' ') t += c;
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (!end || *end || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

ProfileFigures read_ncu_csv(const std::string& csv_text, const std::vector<std::string>& skip) {
  ProfileFigures out;
  // ncu prints "==PROF==" lines and warnings before the table: start at the header row.
  const size_t header = csv_text.find("\"ID\"");
  if (header == std::string::npos) {
    out.problem = "Nsight Compute's report has no kernels (was anything profiled?)";
    return out;
  }
  const auto rows = parse_csv(csv_text.substr(header));
  if (rows.size() < 3) {
    out.problem = "Nsight Compute's report has no kernels";
    return out;
  }
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  std::map<std::string, KernelFigures> by_name;
  std::vector<std::string> order;
  for (size_t r = 2; r < rows.size(); ++r) {
    const auto& row = rows[r];
    auto get = [&](const std::string& metric) -> double {
      auto it = col.find(metric);
      if (it == col.end() || it->second >= row.size()) return 0;
      return number(row[it->second]).value_or(0);
    };
    auto has = [&](const std::string& metric) {
      auto it = col.find(metric);
      return it != col.end() && it->second < row.size() && number(row[it->second]);
    };
    auto name_col = col.find("Kernel Name");
    if (name_col == col.end() || name_col->second >= row.size()) continue;
    std::string name = row[name_col->second];
    if (const size_t paren = name.find('('); paren != std::string::npos) name = name.substr(0, paren);
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    // The checker's own kernels (its GPU references) run in its process, not the runner's.
    if (auto p = col.find("Process Name"); p != col.end() && p->second < row.size() &&
                                             row[p->second].find("runner") == std::string::npos)
      continue;
    if (!by_name.count(name)) order.push_back(name);
    KernelFigures& k = by_name[name];
    k.name = name;
    k.place = name;
    k.launches += 1;
    const double grid = get("launch__grid_size");
    k.blocks += grid;
    if (grid >= k.largest_grid) {
      k.largest_grid = grid;
      k.threads = get("launch__block_size");
      k.registers = get("launch__registers_per_thread");
      k.static_smem = get("launch__shared_mem_per_block_static");
      k.dynamic_smem = get("launch__shared_mem_per_block_dynamic");
      if (has("dram__throughput.avg.pct_of_peak_sustained_elapsed"))
        k.dram_pct = get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
      if (has("sm__warps_active.avg.pct_of_peak_sustained_active"))
        k.achieved_occupancy_pct = get("sm__warps_active.avg.pct_of_peak_sustained_active");
    }
    // Global loads and stores: sectors per request; the fewest from Source Counters' theoretical
    // sectors (ideal against actual), when ncu gave them.
    const double theo = get("memory_l2_theoretical_sectors_global"), ideal = get("memory_l2_theoretical_sectors_global_ideal");
    const double ideal_share = theo > 0 && ideal > 0 ? std::min(1.0, ideal / theo) : 1.0;
    const double lane_share = std::clamp(get("smsp__thread_inst_executed_per_inst_executed.ratio") / 32, 0.0, 1.0);
    auto add = [&](AccessKind kind, double requests, double units, double ideal_units) {
      if (requests <= 0) return;
      auto it = std::find_if(k.lines.begin(), k.lines.end(), [&](const LineFigures& l) { return l.kind == kind; });
      if (it == k.lines.end()) {
        k.lines.push_back(LineFigures{name, kind});
        it = k.lines.end() - 1;
      }
      it->requests += requests, it->units += units, it->ideal_units += ideal_units;
      it->lanes_possible += 32 * requests, it->lanes += 32 * requests * (lane_share > 0 ? lane_share : 1);
    };
    const double ld_sectors = get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    const double st_sectors = get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    add(AccessKind::GlobalLoad, get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ld_sectors, ld_sectors * ideal_share);
    add(AccessKind::GlobalStore, get("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), st_sectors, st_sectors * ideal_share);
    // Shared memory: one pass per instruction, plus one per bank conflict.
    const double sld = get("smsp__inst_executed_op_shared_ld.sum"), sst = get("smsp__inst_executed_op_shared_st.sum");
    add(AccessKind::SharedLoad, sld, sld + get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), sld);
    add(AccessKind::SharedStore, sst, sst + get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), sst);
    // Atomics: warp requests, each up to 32 lanes.
    const double atomics = get("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum") +
                           get("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum");
    add(AccessKind::GlobalAtomic, atomics, atomics, atomics);
    k.atomic_ops += atomics * 32 * (lane_share > 0 ? lane_share : 1);
    k.atomic_most_on_one = std::max(k.atomic_most_on_one, k.atomic_ops);
    k.barriers += get("smsp__inst_executed_op_barrier.sum") / std::max(1.0, std::ceil(k.threads / 32));
    // The stall reason with the most samples, by its name in the metric.
    double most = 0;
    for (const auto& [metric, i] : col) {
      const std::string prefix = "smsp__pcsamp_warps_issue_stalled_";
      if (metric.rfind(prefix, 0) != 0 || metric.find("_not_issued") != std::string::npos || i >= row.size()) continue;
      const std::string reason = metric.substr(prefix.size());
      if (reason == "selected" || reason == "not_selected") continue;
      if (const double v = number(row[i]).value_or(0); v > most) {
        most = v;
        k.top_stall = reason;
        std::replace(k.top_stall.begin(), k.top_stall.end(), '_', ' ');
      }
    }
  }
  for (const auto& n : order) out.kernels.push_back(by_name[n]);
  if (out.kernels.empty()) out.problem = "Nsight Compute profiled none of the lab's kernels";
  return out;
}

}  // namespace cudalab
