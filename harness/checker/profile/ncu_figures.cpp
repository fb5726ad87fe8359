// Reading Nsight Compute's raw CSV page (ncu_figures.h). The first row names the columns (metric
// names), the second gives units (with --print-units base: "sector", "request", "%", ...), then a
// row per profiled kernel launch. A metric the GPU or ncu version lacks is simply absent.
#include "ncu_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
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
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        cell += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cell += c;
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

// "run::<unnamed>::guards_kernel" -> true: a kernel of the harness's namespaces, or one `skip`
// names exactly.
bool is_harness_kernel(const std::string& name, const std::vector<std::string>& skip) {
  for (const char* ns : {"run::", "wire::", "cudalab::"})
    if (name.rfind(ns, 0) == 0) return true;
  return std::find(skip.begin(), skip.end(), name) != skip.end();
}

// "(256, 1, 1)" -> 256 (the product of the three): the LaunchStats section's "Block Size" and
// "Grid Size" columns, where a report has no launch__block_size or launch__grid_size.
std::optional<double> dims(const std::string& s) {
  double product = 1;
  int seen = 0;
  std::string t;
  for (char c : s + ",") {
    if ((c >= '0' && c <= '9') || c == '.')
      t += c;
    else if (!t.empty())
      product *= std::strtod(t.c_str(), nullptr), t.clear(), ++seen;
  }
  if (seen == 0) return std::nullopt;
  return product;
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
    // The harness's own kernels, by their namespaces as ncu demangles them ("run::<unnamed>::
    // guards_kernel", "wire::<unnamed>::fill_kernel", the checker's "cudalab::<unnamed>::
    // range_sum_kernel"), whatever process ran them (the runner's name is the lab file's or a
    // variant's, so the process says nothing). A lab's kernels are its own file's, never in these.
    if (is_harness_kernel(name, skip)) continue;
    if (!by_name.count(name)) order.push_back(name);
    KernelFigures& k = by_name[name];
    k.name = name;
    k.place = name;
    k.launches += 1;
    // Launch figures come with the LaunchStats and Occupancy sections (launch__*, device__*: not
    // in `ncu --query-metrics`, never asked for by name); "Grid Size" and "Block Size" otherwise.
    auto launch = [&](const std::string& metric, const std::string& column) {
      if (has(metric)) return get(metric);
      auto it = col.find(column);
      return it != col.end() && it->second < row.size() ? dims(row[it->second]).value_or(0) : 0.0;
    };
    if (out.device.empty())
      if (auto d = col.find("device__attribute_display_name"); d != col.end() && d->second < row.size())
        out.device = row[d->second];
    if (has("device__attribute_multiprocessor_count")) {
      out.sms = get("device__attribute_multiprocessor_count");
      out.threads_per_sm = get("device__attribute_max_threads_per_multiprocessor");
      out.blocks_per_sm = get("device__attribute_max_blocks_per_multiprocessor");
      out.smem_per_sm = get("device__attribute_max_shared_memory_per_multiprocessor");
      out.regs_per_sm = get("device__attribute_max_registers_per_multiprocessor");
    }
    const double grid = launch("launch__grid_size", "Grid Size");
    k.blocks += grid;
    if (grid >= k.largest_grid) {
      k.largest_grid = grid;
      k.threads = launch("launch__block_size", "Block Size");
      k.registers = get("launch__registers_per_thread");
      k.static_smem = get("launch__shared_mem_per_block_static");
      k.dynamic_smem = get("launch__shared_mem_per_block_dynamic");
      if (has("dram__throughput.avg.pct_of_peak_sustained_elapsed"))
        k.dram_pct = get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
      if (has("sm__warps_active.avg.pct_of_peak_sustained_active"))
        k.achieved_occupancy_pct = get("sm__warps_active.avg.pct_of_peak_sustained_active");
      if (has("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"))
        k.pred_on_share = std::clamp(get("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio") / 32, 0.0, 1.0);
      const double shared_inst =
          get("smsp__inst_executed_op_shared_ld.sum") + get("smsp__inst_executed_op_shared_st.sum");
      if (shared_inst > 0 && has("memory_l1_wavefronts_shared_ideal"))
        k.shared_working_share = std::min(1.0, get("memory_l1_wavefronts_shared_ideal") / shared_inst);
    }
    // Global loads and stores: sectors per request; the fewest from Source Counters' theoretical
    // sectors (ideal against actual), when ncu gave them.
    const double theo = get("memory_l2_theoretical_sectors_global"),
                 ideal = get("memory_l2_theoretical_sectors_global_ideal");
    const double ideal_share = theo > 0 && ideal > 0 ? std::min(1.0, ideal / theo) : 1.0;
    // Busy lanes: those whose predicate is on (a short divergent branch is predicated, not jumped:
    // its idle lanes still issue), else those the warp had at all.
    const double lane_share = std::clamp(get(has("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio")
                                                 ? "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
                                                 : "smsp__thread_inst_executed_per_inst_executed.ratio") /
                                             32,
                                         0.0, 1.0);
    auto add = [&](AccessKind kind, double requests, double units, double ideal_units, double bytes = 0) {
      if (requests <= 0) return;
      auto it = std::find_if(k.lines.begin(), k.lines.end(), [&](const LineFigures& l) { return l.kind == kind; });
      if (it == k.lines.end()) {
        k.lines.push_back(LineFigures{name, kind});
        it = k.lines.end() - 1;
      }
      it->requests += requests, it->units += units, it->ideal_units += ideal_units, it->bytes += bytes;
      it->lanes_possible += 32 * requests, it->lanes += 32 * requests * (lane_share > 0 ? lane_share : 1);
    };
    const double ld_sectors = get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    const double st_sectors = get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    // The bytes the lanes asked for: the fewest sectors' 32 bytes (a lane's width is what a float4
    // load changes: 4 times the bytes per request).
    add(AccessKind::GlobalLoad, get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ld_sectors,
        ld_sectors * ideal_share, 32 * ld_sectors * ideal_share);
    add(AccessKind::GlobalStore, get("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), st_sectors,
        st_sectors * ideal_share);
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
    // Data reuse in a matrix product: the bytes every lane loaded from global memory (plain loads
    // and cp.async copies into shared memory) and from shared memory, and the FFMAs, per thread;
    // each added up over the launches where the report has it, absent where it has none.
    auto sum_of = [&](std::optional<double>& into, std::initializer_list<const char*> metrics) {
      for (const char* m : metrics)
        if (has(m)) into = into.value_or(0) + get(m);
    };
    sum_of(k.global_load_bytes,
           {"sm__sass_data_bytes_mem_global_op_ld.sum", "sm__sass_data_bytes_mem_global_op_ldgsts.sum"});
    sum_of(k.shared_load_bytes, {"sm__sass_data_bytes_mem_shared_op_ld.sum"});
    sum_of(k.fmas, {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"});
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
