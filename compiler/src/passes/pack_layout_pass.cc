// pack-layout: the blocked layout of each VTA op's operands (passes.h).
#include "vta/compiler/passes/passes.h"

namespace vta::compiler {

namespace {

int round_up(int v, int block) {
  return (v + block - 1) / block * block;
}

class PackLayoutPass : public Pass {
 public:
  std::string name() const override { return "pack-layout"; }
  std::string description() const override {
    return "the blocked layout VTA reads each VTA op's operands in (NCHW{BATCH}n{BLOCK}c, "
           "channels padded to whole blocks, a kernel fold's channels); needs the target's design";
  }
  bool run(ir::Module& m, const PassContext& ctx) const override {
    if (!ctx.config) {
      return false;
    }
    const HwConfig& cfg = *ctx.config;
    bool changed = false;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (m.ops[i].place != Placement::kVta) {
        continue;
      }
      const NetworkLayer& l = m.net->layers[i];
      const TensorShape& in = m.types.at(l.input).shape;
      const TensorShape& out = m.types.at(l.name).shape;
      const VtaLowering& vta = op_def(l.op).vta;
      const int c = vta.input_channels ? vta.input_channels(l, in) : in.c;
      ir::PackedLayout p;
      p.batch = cfg.batch, p.block_in = cfg.block_in, p.block_out = cfg.block_out;
      p.c = c, p.c_padded = round_up(c, cfg.block_in);
      p.k = out.c, p.k_padded = round_up(out.c, cfg.block_out);
      m.ops[i].packed = p;
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_pack_layout_pass() {
  return std::make_unique<PackLayoutPass>();
}

}  // namespace vta::compiler
