// infer-types: every value's type (passes.h).
#include "ir/shape_inference.h"
#include "vta/compiler/passes/passes.h"

namespace vta::compiler {

namespace {

class InferTypesPass : public Pass {
 public:
  std::string name() const override { return "infer-types"; }
  std::string description() const override {
    return "every value's type (shape from the operator table, int8, NCHW, the quantization "
           "exponent of a quantized model)";
  }
  bool run(ir::Module& m, const PassContext&) const override {
    std::map<std::string, int> exps;
    if (m.quantized) {
      exps[m.net->input_name] = m.quantized->input_exp;
      for (const QuantLayerReport& r : m.quantized->layers) {
        exps[r.name] = r.out_exp;
      }
    }
    std::map<std::string, ir::TensorType> types;
    for (const auto& [name, shape] : infer_network_shapes(*m.net)) {
      ir::TensorType& t = types[name];
      t.shape = shape;
      if (auto e = exps.find(name); e != exps.end()) {
        t.exp = e->second;
      }
    }
    const bool changed = m.types.size() != types.size();
    m.types = std::move(types);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_infer_types_pass() {
  return std::make_unique<InferTypesPass>();
}

}  // namespace vta::compiler
