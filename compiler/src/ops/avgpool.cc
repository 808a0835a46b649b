// avgpool: the mean over a window (of its real pixels, or of the whole window with
// count_include_pad) times 2^rescale, rounded to nearest, saturated to int8; on the host.
#include <fmt/format.h>

#include "ops/op_common.h"

namespace vta::compiler::ops {

namespace {

void write_avgpool(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["count_include_pad"] = l.count_include_pad;
  if (l.rescale) {
    j["rescale"] = l.rescale;
  }
  write_window_json(l, j);
}

TensorShape avgpool_shape(const ShapeContext& ctx) {
  return window_shape(ctx.layer, ctx.in);
}

Placement place_avgpool(const NetworkLayer&) {
  return Placement::kHost;
}

std::string avgpool_attributes(const NetworkLayer& l) {
  return fmt::format("{} count_include_pad={} rescale={}", window_attributes(l),
                     l.count_include_pad, l.rescale);
}

NetworkTensor run_avgpool(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: avgpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h);
  return average_pool(ctx.in, l);
}

}  // namespace

const OpDef& avgpool_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "avgpool";
    d.json_keys = {"name",   "op", "input", "kernel", "stride", "pad", "count_include_pad",
                   "rescale"};
    d.from_graph_op = GraphOp::kAvgPool;
    d.write_json = write_avgpool;
    d.infer_shape = avgpool_shape;
    d.place = place_avgpool;
    d.attributes = avgpool_attributes;
    d.run_host = run_avgpool;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
