// add: a + b of two int8 tensors of one scale and shape, then the layer's lower bound and
// clip_hi, saturated to int8; on the host.
#include <algorithm>

#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

TensorShape add_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  auto it = ctx.shapes.find(l.residual);
  if (it == ctx.shapes.end()) {
    throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, l.residual));
  }
  if (it->second != ctx.in) {
    throw Error(fmt::format("{} layer '{}': operand '{}' has shape {}, '{}' has {}", l.op, l.name,
                            l.input, ctx.in.str(), l.residual, it->second.str()));
  }
  return ctx.in;
}

Placement place_add(const NetworkLayer&) {
  return Placement::kHost;
}

std::string add_attributes(const NetworkLayer& l) {
  const std::string e = epilogue_attribute(l.epilogue);
  return e.empty() ? e : e.substr(1);  // without the separating space
}

NetworkTensor run_add(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: add on host", l.name);
  const NetworkTensor& a = ctx.in;
  const NetworkTensor& b = named_tensor(ctx, l.residual);
  NetworkTensor out = a;
  const int lo = std::max(-128, l.epilogue.lower_bound().value_or(-128));
  const int hi = std::min(127, l.epilogue.clip_hi.value_or(127));
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = int8_t(std::clamp(int(a.data[i]) + int(b.data[i]), lo, hi));
  }
  return out;
}

}  // namespace

const OpDef& add_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "add";
    d.json_keys = {"name", "op", "input", "residual", "epilogue"};
    d.has_epilogue = true;
    d.from_graph_op = GraphOp::kAdd;
    d.infer_shape = add_shape;
    d.place = place_add;
    d.attributes = add_attributes;
    d.run_host = run_add;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
