#include "vta/compiler/layer_fields.h"

#include "vta/compiler/report.h"

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

std::vector<LayerField> make_fields() {
  return {
      label(stored<&LayerRun::name>("name", "1", "layer name")),
      label(stored<&LayerRun::kind>("kind", "1", "conv2d or matmul")),
      label(stored<&LayerRun::shape>("shape", "1", "NxCxHxW * KxRxS sS pP -> KxOHxOW")),
      label(stored<&LayerRun::backend>("backend", "1", "backend that ran the layer")),
      label(stored<&LayerRun::config>("config", "1", "hardware config (upstream bitstream name)")),
      label(stored<&LayerRun::wall_seconds>("wall_seconds", "s", "host time of the run")),
      stored<&LayerRun::macs>("macs", "MACs", "real multiply-accumulates"),
      stored<&LayerRun::gemm_bound>(
          "gemm_lower_bound", "GEMM micro-ops",
          "GEMM micro-ops of the channel-padded layer (cycle lower bound)"),
      stored<&LayerRun::peak_macs_per_cycle>("peak_macs_per_cycle", "MACs/cycle",
                                             "BATCH x BLOCK_IN x BLOCK_OUT"),
      derived(
          "cycles", "cycles", "cycles of the run",
          [](const LayerRun& r) { return Json(r.stats.cycles); }, timed),
      derived(
          "gemm_utilization", "ratio", "GEMM micro-ops / cycles",
          [](const LayerRun& r) { return Json(metrics_of(r).gemm_utilization); }, timed),
      derived(
          "macs_per_cycle", "MACs/cycle", "real MACs / cycles",
          [](const LayerRun& r) { return Json(metrics_of(r).macs_per_cycle); }, timed),
      derived(
          "cycles_over_bound", "ratio", "cycles / bound.cycles (the honest bound)",
          [](const LayerRun& r) { return Json(metrics_of(r).bound_ratio); }, timed),
      derived(
          "bytes_moved", "bytes", "DRAM bytes moved, by the upstream counting rules",
          [](const LayerRun& r) { return Json(r.moved_bytes()); }, always),
      stored<&LayerRun::min_bytes>("bytes_minimum", "bytes", "every operand moved once"),
      derived(
          "bytes_over_minimum", "ratio", "bytes moved / minimum bytes",
          [](const LayerRun& r) { return Json(metrics_of(r).bytes_ratio); }, always),
      label(LayerField{"verdict", "1", "what limits the run (from its counters)",
                       [](const LayerRun& r) { return Json(r.verdict.key); },
                       [](LayerRun& r, const nlohmann::json& v) { v.get_to(r.verdict.key); },
                       always, false}),
      label(LayerField{"verdict_advice", "1", "the verdict in words, with what would help",
                       [](const LayerRun& r) { return Json(r.verdict.advice); },
                       [](LayerRun& r, const nlohmann::json& v) { v.get_to(r.verdict.advice); },
                       always, false}),
      label(stored<&LayerRun::kernels>("uop_kernels", "kernels", "distinct micro-op kernels")),
      label(stored<&LayerRun::kernel_uops>("uop_kernel_entries", "micro-ops",
                                           "micro-ops of the distinct kernels")),
      stored<&LayerRun::checked>("checked", "1", "compared with the C++ reference"),
      stored<&LayerRun::mismatches>("mismatches", "elements", "output elements that differ",
                                    checked),
      label(stored<&LayerRun::first_mismatch>("first_mismatch", "1", "the first difference",
                                              mismatched)),
  };
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
