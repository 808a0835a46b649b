// import: the source into the module (passes.h).
#include <fmt/format.h>

#include "vta/compiler/frontend/onnx_import.h"
#include "vta/compiler/passes/passes.h"

namespace vta::compiler {

namespace {

class ImportPass : public Pass {
 public:
  std::string name() const override { return "import"; }
  std::string description() const override {
    return "read resnet18, a network JSON file (int8 network) or MODEL.onnx (float graph, "
           "BatchNormalization folded)";
  }
  bool run(ir::Module& m, const PassContext& ctx) const override {
    if (ctx.source == "resnet18" || ctx.source == "resnet-18") {
      m.net = Network::resnet18(ctx.batch);
    } else if (is_onnx_model(ctx.source)) {
      m.float_graph = import_onnx_timed(ctx.source);
    } else {
      m.net = Network::from_file(ctx.source);
    }
    m.name = m.net ? m.net->name : m.float_graph->name;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> make_import_pass() {
  return std::make_unique<ImportPass>();
}

}  // namespace vta::compiler
