// schedule: the automatic scheduler's tiling of each VTA op (passes.h).
#include "vta/compiler/passes/passes.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

class SchedulePass : public Pass {
 public:
  std::string name() const override { return "schedule"; }
  std::string description() const override {
    return "the automatic scheduler's tiling for each VTA op without its own (not with --tune: "
           "the runner tunes); needs the target's design";
  }
  bool run(ir::Module& m, const PassContext& ctx) const override {
    if (!ctx.config || ctx.tune_candidates) {
      return false;
    }
    bool changed = false;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      NetworkLayer& l = m.net->layers[i];
      if (m.ops[i].place != Placement::kVta || l.schedule || !op_def(l.op).vta.auto_schedule) {
        continue;
      }
      try {
        l.schedule = op_def(l.op).vta.auto_schedule(l, m.types.at(l.input).shape, *ctx.config);
        m.ops[i].auto_scheduled = changed = true;
      } catch (const Error&) {
        // No schedule fits: the runner meets the same error at this layer and reports it there
        // (with the layers before it done).
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_schedule_pass() {
  return std::make_unique<SchedulePass>();
}

}  // namespace vta::compiler
