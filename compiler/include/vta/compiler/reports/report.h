// Human-readable and JSON reports of compiled layer runs: shape, schedule, the seven upstream
// counters, cycles, GEMM utilization, achieved MAC/cycle against the peak, and bytes moved
// against the minimum.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

// Derived figures of one run (cycles-based ones are 0 on untimed backends).
struct LayerMetrics {
  double gemm_utilization = 0;  // GEMM micro-ops / cycles
  double macs_per_cycle = 0;    // real MACs / cycles
  double bound_ratio = 0;       // cycles / the honest bound (LayerBound::cycles)
  double bytes_ratio = 0;       // bytes moved / minimum bytes
};
LayerMetrics metrics_of(const LayerRun& r);
// A count for the text report: 472.3K, 1.35M, 2.00G (below 10^4: the integer).
std::string format_count(double v);

// One table for all runs plus a summary line (totals).
std::string format_report(const std::vector<LayerRun>& runs);
nlohmann::ordered_json run_to_json(const LayerRun& r);
// {"layers": [...], "summary": {...}}
// The runs of a network (or any sequence) summed: counters, cycles, MACs, bytes and bounds
// (each layer's own bound; layers run one after another).
LayerRun total_of(const std::vector<LayerRun>& runs);

nlohmann::ordered_json report_to_json(const std::vector<LayerRun>& runs);

}  // namespace vta::compiler
