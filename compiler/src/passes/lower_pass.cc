// lower: each scheduled VTA op's program, recorded (passes.h).
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/passes/passes.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

class LowerPass : public Pass {
 public:
  std::string name() const override { return "lower"; }
  std::string description() const override {
    return "each scheduled VTA op's program: the runtime calls of its loads, GEMM / ALU kernels, "
           "dependency tokens and stores, recorded without running (counted in the IR; "
           "`--print-lowered` prints them); needs the target's design";
  }
  bool run(ir::Module& m, const PassContext& ctx) const override {
    if (!ctx.config) {
      return false;
    }
    bool changed = false;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      const NetworkLayer& l = m.net->layers[i];
      const VtaLowering& vta = op_def(l.op).vta;
      // Ops without a schedule (none fits, or --tune) are lowered by the runner as it runs them.
      if (m.ops[i].place != Placement::kVta || (!l.schedule && !vta.lower)) {
        continue;
      }
      try {
        const TensorShape& in = m.types.at(l.input).shape;
        if (vta.lower) {
          m.ops[i].lowered = vta.lower(l, in, *ctx.config);
          changed = true;
          continue;
        }
        const Conv2dParams p = vta.vta_conv(l, in, *ctx.config);
        m.ops[i].lowered = lower_conv2d(*ctx.config, p, l.epilogue, *l.schedule);
        changed = true;
      } catch (const Error&) {
        // A given schedule that does not fit: the runner meets the same error at this layer and
        // reports it there, with the layers before it done (as the schedule pass leaves it).
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_lower_pass() {
  return std::make_unique<LowerPass>();
}

}  // namespace vta::compiler
