// place: every op on VTA or the host (passes.h).
#include "vta/compiler/passes/passes.h"

namespace vta::compiler {

namespace {

class PlacePass : public Pass {
 public:
  std::string name() const override { return "place"; }
  std::string description() const override {
    return "every op on VTA or the host, as its operator's entry in the table decides; an op "
           "both can run goes where the estimated time is shorter (VTA cycles at the clock "
           "against the host CPU model; needs the target's design and the types)";
  }
  bool run(ir::Module& m, const PassContext& ctx) const override {
    bool changed = m.ops.size() != m.net->layers.size();
    m.ops.resize(m.net->layers.size());
    const HwConfig* cfg = ctx.config ? &*ctx.config : nullptr;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      const NetworkLayer& l = m.net->layers[i];
      auto in = m.types.find(l.input);
      const PlacementChoice p = in != m.types.end() ? choose_placement(l, in->second.shape, cfg)
                                                    : PlacementChoice{op_def(l.op).place(l), {}};
      changed |= m.ops[i].place != p.place || m.ops[i].place_reason != p.reason;
      m.ops[i].place = p.place;
      m.ops[i].place_reason = p.reason;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_place_pass() {
  return std::make_unique<PlacePass>();
}

}  // namespace vta::compiler
