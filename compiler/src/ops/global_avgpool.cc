// global_avgpool: an average pool whose window is the whole input, on the host.
#include <fmt/format.h>

#include "ops/op_common.h"

namespace vta::compiler::ops {

namespace {

void write_global_avgpool(const NetworkLayer& l, nlohmann::ordered_json& j) {
  if (l.rescale) {
    j["rescale"] = l.rescale;
  }
}

TensorShape global_avgpool_shape(const ShapeContext& ctx) {
  return TensorShape{ctx.in.n, ctx.in.c, 1, 1};
}

Placement place_global_avgpool(const NetworkLayer&) {
  return Placement::kHost;
}

std::string global_avgpool_attributes(const NetworkLayer& l) {
  return fmt::format("rescale={}", l.rescale);
}

NetworkTensor run_global_avgpool(const OpContext& ctx, std::string& note) {
  NetworkLayer whole = ctx.layer;
  whole.kh = ctx.in.h, whole.kw = ctx.in.w;
  whole.stride_h = whole.stride_w = 1;
  whole.pad_top = whole.pad_left = whole.pad_bottom = whole.pad_right = 0;
  NetworkTensor out = average_pool(ctx.in, whole);
  note = fmt::format("{}: global average pool on host", ctx.layer.name);
  return out;
}

}  // namespace

const OpDef& global_avgpool_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "global_avgpool";
    d.json_keys = {"name", "op", "input", "rescale"};
    d.from_graph_op = GraphOp::kGlobalAvgPool;
    d.write_json = write_global_avgpool;
    d.infer_shape = global_avgpool_shape;
    d.place = place_global_avgpool;
    d.attributes = global_avgpool_attributes;
    d.run_host = run_global_avgpool;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
