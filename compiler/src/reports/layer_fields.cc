#include "vta/compiler/reports/layer_fields.h"

#include <fmt/format.h>

#include "vta/compiler/reports/report.h"

namespace vta::compiler {

namespace {

using Json = nlohmann::ordered_json;

bool always(const LayerRun&) {
  return true;
}
bool timed(const LayerRun& r) {
  return r.stats.timed;
}
bool checked(const LayerRun& r) {
  return r.checked;
}
bool mismatched(const LayerRun& r) {
  return r.checked && r.mismatches > 0;
}

// A field stored in member M of LayerRun.
template <auto M>
Json get_member(const LayerRun& r) {
  return Json(r.*M);
}
template <auto M>
void set_member(LayerRun& r, const nlohmann::json& v) {
  v.get_to(r.*M);
}

template <auto M>
LayerField stored(const char* key, const char* unit, const char* description,
                  bool (*applies)(const LayerRun&) = always, bool in_sweep_row = true) {
  return LayerField{key, unit, description, &get_member<M>, &set_member<M>, applies, in_sweep_row};
}

LayerField derived(const char* key, const char* unit, const char* description,
                   Json (*get)(const LayerRun&), bool (*applies)(const LayerRun&)) {
  return LayerField{key, unit, description, get, nullptr, applies, true};
}

LayerField label(LayerField f) {
  f.in_sweep_row = false;
  return f;
}

LayerField in_text(LayerField f, const char* column, int width,
                   std::string (*text)(const LayerRun&)) {
  f.column = column;
  f.width = width;
  f.text = text;
  return f;
}

std::string cycles_text(const LayerRun& r) {
  return format_count(double(r.stats.cycles));
}
std::string utilization_text(const LayerRun& r) {
  return fmt::format("{:.1f}%", 100 * metrics_of(r).gemm_utilization);
}
std::string macs_per_cycle_text(const LayerRun& r) {
  return fmt::format("{:.1f}/{}", metrics_of(r).macs_per_cycle, r.peak_macs_per_cycle);
}
std::string bound_ratio_text(const LayerRun& r) {
  return fmt::format("{:.2f}", metrics_of(r).bound_ratio);
}
std::string bytes_ratio_text(const LayerRun& r) {
  return fmt::format("{:.2f}", metrics_of(r).bytes_ratio);
}
std::string check_text(const LayerRun& r) {
  return !r.checked ? "-" : (r.mismatches ? fmt::format("{} BAD", r.mismatches) : "ok");
}
std::string verdict_text(const LayerRun& r) {
  return r.verdict.key.empty() ? "-" : r.verdict.key;
}

// What the run was: names, where it ran, how long the host took.
std::vector<LayerField> label_fields() {
  return {
      label(stored<&LayerRun::name>("name", "1", "layer name")),
      label(stored<&LayerRun::kind>(
          "kind", "1", "conv2d, matmul, or maxpool / avgpool / add / elementwise on the ALU")),
      label(stored<&LayerRun::shape>("shape", "1", "NxCxHxW * KxRxS sS pP -> KxOHxOW")),
      label(stored<&LayerRun::backend>("backend", "1", "backend that ran the layer")),
      label(stored<&LayerRun::config>("config", "1", "hardware config (upstream bitstream name)")),
      label(stored<&LayerRun::wall_seconds>("wall_seconds", "s", "host time of the run")),
  };
}

// What the compiler and the backend measured, against the bounds.
std::vector<LayerField> figure_fields() {
  return {
      stored<&LayerRun::macs>("macs", "MACs", "real multiply-accumulates"),
      stored<&LayerRun::gemm_bound>(
          "gemm_lower_bound", "GEMM micro-ops",
          "GEMM micro-ops of the channel-padded layer (cycle lower bound)"),
      stored<&LayerRun::peak_macs_per_cycle>("peak_macs_per_cycle", "MACs/cycle",
                                             "BATCH x BLOCK_IN x BLOCK_OUT"),
      in_text(derived(
                  "cycles", "cycles", "cycles of the run",
                  [](const LayerRun& r) { return Json(r.stats.cycles); }, timed),
              "cycles", 10, cycles_text),
      in_text(derived(
                  "gemm_utilization", "ratio", "GEMM micro-ops / cycles",
                  [](const LayerRun& r) { return Json(metrics_of(r).gemm_utilization); }, timed),
              "util", 6, utilization_text),
      in_text(derived(
                  "macs_per_cycle", "MACs/cycle", "real MACs / cycles",
                  [](const LayerRun& r) { return Json(metrics_of(r).macs_per_cycle); }, timed),
              "MAC/cyc", 11, macs_per_cycle_text),
      in_text(derived(
                  "cycles_over_bound", "ratio", "cycles / bound.cycles (the honest bound)",
                  [](const LayerRun& r) { return Json(metrics_of(r).bound_ratio); }, timed),
              "x bound", 7, bound_ratio_text),
      derived(
          "bytes_moved", "bytes", "DRAM bytes moved, by the upstream counting rules",
          [](const LayerRun& r) { return Json(r.moved_bytes()); }, always),
      stored<&LayerRun::min_bytes>("bytes_minimum", "bytes", "every operand moved once"),
      in_text(derived(
                  "bytes_over_minimum", "ratio", "bytes moved / minimum bytes",
                  [](const LayerRun& r) { return Json(metrics_of(r).bytes_ratio); }, always),
              "B/min", 7, bytes_ratio_text),
  };
}

// The micro-op kernels, the reference check and the verdict.
std::vector<LayerField> outcome_fields() {
  return {
      label(stored<&LayerRun::kernels>("uop_kernels", "kernels", "distinct micro-op kernels")),
      label(stored<&LayerRun::kernel_uops>("uop_kernel_entries", "micro-ops",
                                           "micro-ops of the distinct kernels")),
      in_text(stored<&LayerRun::checked>("checked", "1", "compared with the C++ reference"),
              "check", 5, check_text),
      stored<&LayerRun::mismatches>("mismatches", "elements", "output elements that differ",
                                    checked),
      label(stored<&LayerRun::first_mismatch>("first_mismatch", "1", "the first difference",
                                              mismatched)),
      in_text(LayerField{"verdict", "1", "what limits the run (from its counters)",
                         [](const LayerRun& r) { return Json(r.verdict.key); },
                         [](LayerRun& r, const nlohmann::json& v) { v.get_to(r.verdict.key); },
                         always, false},
              "limit", 14, verdict_text),
      label(LayerField{"verdict_advice", "1", "the verdict in words, with what would help",
                       [](const LayerRun& r) { return Json(r.verdict.advice); },
                       [](LayerRun& r, const nlohmann::json& v) { v.get_to(r.verdict.advice); },
                       always, false}),
  };
}

std::vector<LayerField> make_fields() {
  std::vector<LayerField> fields = label_fields();
  for (auto part : {figure_fields(), outcome_fields()}) {
    fields.insert(fields.end(), part.begin(), part.end());
  }
  return fields;
}

}  // namespace

const std::vector<LayerField>& layer_fields() {
  static const std::vector<LayerField> fields = make_fields();
  return fields;
}

nlohmann::ordered_json field_value(const LayerField& f, const LayerRun& r) {
  return f.applies(r) ? f.get(r) : nullptr;
}

}  // namespace vta::compiler
