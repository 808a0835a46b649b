// concat: tensors of one batch and spatial size joined along the channels, on the host.
#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

void read_concat(const nlohmann::json& j, const std::string&, NetworkLayer& l) {
  l.inputs = j.at("inputs").get<std::vector<std::string>>();
  l.input = l.inputs.empty() ? std::string() : l.inputs[0];
}

void write_concat(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j.erase("input");
  j["inputs"] = l.inputs;
}

TensorShape concat_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  if (l.inputs.empty()) {
    throw Error(fmt::format("concat layer '{}' has no inputs", l.name));
  }
  TensorShape out = ctx.in;
  for (size_t i = 1; i < l.inputs.size(); ++i) {
    auto it = ctx.shapes.find(l.inputs[i]);
    if (it == ctx.shapes.end()) {
      throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, l.inputs[i]));
    }
    const TensorShape& s = it->second;
    if (s.n != ctx.in.n || s.h != ctx.in.h || s.w != ctx.in.w) {
      throw Error(fmt::format("{} layer '{}': operand '{}' has shape {}, '{}' has {}", l.op, l.name,
                              l.input, ctx.in.str(), l.inputs[i], s.str()));
    }
    out.c += s.c;
  }
  return out;
}

Placement place_concat(const NetworkLayer&) {
  return Placement::kHost;
}

std::string concat_attributes(const NetworkLayer& l) {
  return fmt::format("axis=channels parts={}", l.inputs.size());
}

NetworkTensor run_concat(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  std::vector<const NetworkTensor*> parts;
  for (const std::string& name : l.inputs) {
    parts.push_back(&named_tensor(ctx, name));
  }
  note = fmt::format("{}: concat of {} tensors on host", l.name, parts.size());
  NetworkTensor out{parts[0]->n, 0, parts[0]->h, parts[0]->w, {}};
  for (const NetworkTensor* t : parts) {
    out.c += t->c;
  }
  for (int n = 0; n < out.n; ++n) {
    for (const NetworkTensor* t : parts) {
      const size_t per = size_t(t->c) * t->h * t->w;
      out.data.insert(out.data.end(), t->data.begin() + long(n * per),
                      t->data.begin() + long((n + 1) * per));
    }
  }
  return out;
}

}  // namespace

const OpDef& concat_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "concat";
    d.json_keys = {"name", "op", "inputs"};
    d.from_graph_op = GraphOp::kConcat;
    d.read_json = read_concat;
    d.write_json = write_concat;
    d.infer_shape = concat_shape;
    d.place = place_concat;
    d.attributes = concat_attributes;
    d.run_host = run_concat;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
