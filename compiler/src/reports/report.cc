#include "vta/compiler/reports/report.h"

#include <fmt/format.h>

#include "vta/compiler/reports/layer_fields.h"

namespace vta::compiler {

namespace {

std::string kib(uint64_t bytes) {
  return fmt::format("{:.1f}", double(bytes) / 1024.0);
}

std::string si(double v) {
  return format_count(v);
}

nlohmann::ordered_json bound_to_json(const LayerBound& b) {
  nlohmann::ordered_json j;
  j["gemm_cycles"] = b.gemm_cycles;
  j["alu_cycles"] = b.alu_cycles;
  j["acc_load_cycles"] = b.acc_load_cycles;
  j["compute_cycles"] = b.compute_cycles;
  j["read_bytes_minimum"] = b.bytes.read;
  j["read_bytes_dram"] = b.bytes.dram_read();
  j["write_bytes_minimum"] = b.bytes.write;
  j["memory_cycles"] = b.memory_cycles;
  j["cycles"] = b.cycles;
  j["binds"] = b.binding();
  return j;
}

}  // namespace

std::string format_count(double v) {
  if (v >= 1e9) {
    return fmt::format("{:.2f}G", v / 1e9);
  }
  if (v >= 1e6) {
    return fmt::format("{:.2f}M", v / 1e6);
  }
  if (v >= 1e4) {
    return fmt::format("{:.1f}K", v / 1e3);
  }
  return fmt::format("{:.0f}", v);
}

LayerRun total_of(const std::vector<LayerRun>& runs) {
  LayerRun t;
  t.name = "total";
  bool timed = !runs.empty();
  for (const LayerRun& r : runs) {
    t.stats.add_counts(r.stats);
    timed = timed && r.stats.timed;
    t.wall_seconds += r.wall_seconds;
    t.macs += r.macs;
    t.gemm_bound += r.gemm_bound;
    t.min_bytes += r.min_bytes;
    t.bound.gemm_cycles += r.bound.gemm_cycles;
    t.bound.alu_cycles += r.bound.alu_cycles;
    t.bound.acc_load_cycles += r.bound.acc_load_cycles;
    t.bound.compute_cycles += r.bound.compute_cycles;
    t.bound.bytes.read += r.bound.bytes.read;
    t.bound.bytes.write += r.bound.bytes.write;
    t.bound.bytes.acc_counted += r.bound.bytes.acc_counted;
    t.bound.bytes.acc_moved += r.bound.bytes.acc_moved;
    t.bound.memory_cycles += r.bound.memory_cycles;
    t.bound.cycles += r.bound.cycles;  // each layer's own bound: layers run one after another
    t.peak_macs_per_cycle = r.peak_macs_per_cycle;
    t.checked = t.checked || r.checked;
    t.mismatches += r.mismatches;
  }
  t.stats.timed = timed;
  return t;
}

LayerMetrics metrics_of(const LayerRun& r) {
  LayerMetrics m;
  if (r.stats.timed && r.stats.cycles) {
    m.gemm_utilization = double(r.stats.gemm_counter) / double(r.stats.cycles);
    m.macs_per_cycle = double(r.macs) / double(r.stats.cycles);
    m.bound_ratio = r.bound.cycles > 0 ? double(r.stats.cycles) / r.bound.cycles : 0;
  }
  if (r.min_bytes) {
    m.bytes_ratio = double(r.moved_bytes()) / double(r.min_bytes);
  }
  return m;
}

namespace {

// The counter columns, then the figure columns of the layer field table.
constexpr const char* kCounterColumns =
    "{:<16} {:<42} {:<20} {:>9} {:>9} {:>8} {:>7} {:>8} {:>9} {:>8}";

std::string table_header() {
  std::string out = fmt::format(kCounterColumns, "layer", "shape", "schedule", "inp KiB", "wgt KiB",
                                "acc KiB", "uop KiB", "out KiB", "gemm", "alu");
  for (const LayerField& f : layer_fields()) {
    if (f.column) {
      out += fmt::format(" {:>{}}", f.column, f.width);
    }
  }
  return out + "\n";
}

std::string table_row(const LayerRun& r, const std::string& shape, const std::string& sched) {
  std::string out = fmt::format(kCounterColumns, r.name, shape, sched, kib(r.stats.inp_load_nbytes),
                                kib(r.stats.wgt_load_nbytes), kib(r.stats.acc_load_nbytes),
                                kib(r.stats.uop_load_nbytes), kib(r.stats.out_store_nbytes),
                                si(double(r.stats.gemm_counter)), si(double(r.stats.alu_counter)));
  for (const LayerField& f : layer_fields()) {
    if (f.column) {
      out += fmt::format(" {:>{}}", f.applies(r) ? f.text(r) : "-", f.width);
    }
  }
  return out + "\n";
}

// One layer's lower bound and what binds it.
std::string bound_line(const LayerRun& r) {
  const LayerBound& b = r.bound;
  // The DRAM bytes behind the memory bound; the counted ones when they differ (ACC_8BIT).
  const std::string acc =
      b.acc_load_cycles ? fmt::format(" + ACC loads {}", b.acc_load_cycles) : "";
  const std::string read =
      b.bytes.dram_read() == b.bytes.read
          ? fmt::format("{} B read", b.bytes.read)
          : fmt::format("{} B read, {} as counted", b.bytes.dram_read(), b.bytes.read);
  return fmt::format(
      "bound {}: compute {} (GEMM {} + ALU {}{}), memory {:.0f} ({}, {} B written), {} "
      "binds; {}\n",
      r.name, b.compute_cycles, b.gemm_cycles, b.alu_cycles, acc, b.memory_cycles, read,
      b.bytes.write, b.binding(), r.verdict.advice);
}

std::string summary_line(size_t layers, const LayerRun& t) {
  const LayerMetrics m = metrics_of(t);
  std::string out = fmt::format(
      "summary: {} layer(s), {} MACs, {} GEMM micro-ops (lower bound {}), {} bytes moved "
      "({:.2f}x minimum), ",
      layers, si(double(t.macs)), si(double(t.stats.gemm_counter)), si(double(t.gemm_bound)),
      si(double(t.moved_bytes())), m.bytes_ratio);
  if (t.stats.timed) {
    out += fmt::format("{} cycles ({:.2f}x bound {}, {:.1f}% GEMM utilization, {:.1f} MAC/cycle), ",
                       si(double(t.stats.cycles)), m.bound_ratio, si(t.bound.cycles),
                       100 * m.gemm_utilization, m.macs_per_cycle);
  } else {
    out += "no cycles (untimed backend), ";
  }
  return out + fmt::format("wall {:.3f} s, check {}\n", t.wall_seconds,
                           !t.checked ? "skipped" : (t.mismatches ? "FAILED" : "passed"));
}

}  // namespace

std::string format_report(const std::vector<LayerRun>& runs) {
  if (runs.empty()) {
    return "";
  }
  const LayerRun& first = runs.front();
  std::string out = fmt::format("backend {}, config {}, peak {} MAC/cycle\n", first.backend,
                                first.config, first.peak_macs_per_cycle);
  out += table_header();
  for (const LayerRun& r : runs) {
    // A run without GEMM work (an ALU-only operator) has no tiling schedule.
    out += table_row(r, r.shape, r.gemm_bound ? r.schedule.describe() : "ALU only");
  }
  const LayerRun t = total_of(runs);
  if (runs.size() > 1) {
    out += table_row(t, fmt::format("{} layers", runs.size()), "");
  }
  for (const LayerRun& r : runs) {
    out += bound_line(r);
  }
  return out + summary_line(runs.size(), t);
}

nlohmann::ordered_json run_to_json(const LayerRun& r) {
  nlohmann::ordered_json j;
  for (const LayerField& f : layer_fields()) {
    if (f.applies(r)) {
      j[f.key] = f.get(r);
    }
  }
  j["schedule"] = r.schedule.to_json();
  j["epilogue"] = r.epilogue.to_json();
  j["stats"] = r.stats.to_json();
  j["bound"] = bound_to_json(r.bound);
  return j;
}

nlohmann::ordered_json report_to_json(const std::vector<LayerRun>& runs) {
  nlohmann::ordered_json j;
  j["layers"] = nlohmann::ordered_json::array();
  for (const LayerRun& r : runs) {
    j["layers"].push_back(run_to_json(r));
  }
  const LayerRun t = total_of(runs);
  const LayerMetrics m = metrics_of(t);
  nlohmann::ordered_json s;
  s["layers"] = runs.size();
  s["macs"] = t.macs;
  s["gemm_counter"] = t.stats.gemm_counter;
  s["alu_counter"] = t.stats.alu_counter;
  s["gemm_lower_bound"] = t.gemm_bound;
  s["bytes_moved"] = t.moved_bytes();
  s["bytes_minimum"] = t.min_bytes;
  s["bound"] = bound_to_json(t.bound);
  s["bound"].erase("binds");  // each layer has its own
  if (t.stats.timed) {
    s["cycles"] = t.stats.cycles;
    s["cycles_over_bound"] = m.bound_ratio;
    s["gemm_utilization"] = m.gemm_utilization;
  }
  s["wall_seconds"] = t.wall_seconds;
  s["check"] = !t.checked ? "skipped" : (t.mismatches ? "failed" : "passed");
  j["summary"] = s;
  return j;
}

}  // namespace vta::compiler
