// place: every op on VTA or the host (passes.h).
#include "vta/compiler/passes/passes.h"

namespace vta::compiler {

namespace {

class PlacePass : public Pass {
 public:
  std::string name() const override { return "place"; }
  std::string description() const override {
    return "every op on VTA or the host, as its operator's entry in the table decides";
  }
  bool run(ir::Module& m, const PassContext&) const override {
    bool changed = m.ops.size() != m.net->layers.size();
    m.ops.resize(m.net->layers.size());
    for (size_t i = 0; i < m.ops.size(); ++i) {
      const NetworkLayer& l = m.net->layers[i];
      const Placement p = op_def(l.op).place(l);
      changed |= m.ops[i].place != p;
      m.ops[i].place = p;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_place_pass() {
  return std::make_unique<PlacePass>();
}

}  // namespace vta::compiler
