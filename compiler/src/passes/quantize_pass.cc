// quantize: float graph -> network of the config's lanes, int8 without one (passes.h).
#include "vta/compiler/passes/passes.h"
#include "vta/compiler/run/layer_widths.h"

namespace vta::compiler {

namespace {

class QuantizePass : public Pass {
 public:
  std::string name() const override { return "quantize"; }
  std::string description() const override {
    return "float graph -> int8 network: power-of-two scales from calibration, activations and "
           "residual adds fused into their layers";
  }
  bool run(ir::Module& m, const PassContext& ctx) const override {
    if (!m.float_graph) {
      return false;  // already an int8 network
    }
    QuantOptions q = ctx.quant;
    if (ctx.config) {
      check_network_widths(*ctx.config, m.float_graph->name);
      q.widths = LayerWidths::of(*ctx.config);  // quantized to the lanes it runs on
    }
    if (!ctx.input_path.empty()) {
      q.first_input = read_float_input(*m.float_graph, ctx.input_path);
    }
    m.quantized = quantize_graph(*m.float_graph, q);
    m.net = m.quantized->net;
    m.float_graph.reset();
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> make_quantize_pass() {
  return std::make_unique<QuantizePass>();
}

}  // namespace vta::compiler
