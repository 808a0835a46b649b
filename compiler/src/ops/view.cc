// view: the same int8 values, in the same order, under other NCHW dims (a Reshape: a sequence's
// N*S x D rows seen as N x S x heads x d for attention, and back). On the host; moves no data.
#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& view_attrs() {
  static const std::vector<AttrSpec> specs{{"to_n", 1, true, 1, kMaxTensorDim},
                                           {"to_c", 1, true, 1, kMaxTensorDim},
                                           {"to_h", 1, true, 1, kMaxTensorDim},
                                           {"to_w", 1, true, 1, kMaxTensorDim}};
  return specs;
}

TensorShape target(const NetworkLayer& l) {
  const auto& a = view_attrs();
  return TensorShape{int(attr_value(l, a[0])), int(attr_value(l, a[1])), int(attr_value(l, a[2])),
                     int(attr_value(l, a[3]))};
}

void read_view(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, view_attrs());
}

void write_view(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, view_attrs(), j);
}

uint64_t values(const TensorShape& s) {
  return uint64_t(s.n) * uint64_t(s.c) * uint64_t(s.h) * uint64_t(s.w);
}

TensorShape view_shape(const ShapeContext& ctx) {
  check_attrs(ctx.layer, view_attrs());
  const TensorShape to = target(ctx.layer);
  if (values(to) != values(ctx.in)) {
    throw Error(fmt::format("view layer '{}': the {} values of {} cannot be viewed as {}",
                            ctx.layer.name, values(ctx.in), ctx.in.str(), to.str()));
  }
  return to;
}

Placement place_view(const NetworkLayer&) {
  return Placement::kHost;
}

std::string view_attributes(const NetworkLayer& l) {
  return "to=" + target(l).str();
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_view(const Ctx& ctx, std::string& note) {
  const TensorShape to = target(ctx.layer);
  const TensorShape from{ctx.in.n, ctx.in.c, ctx.in.h, ctx.in.w};
  note = fmt::format("{}: view {} as {} on host", ctx.layer.name, from.str(), to.str());
  return TensorOf<Ctx>{to.n, to.c, to.h, to.w, ctx.in.data};
}

}  // namespace

const OpDef& view_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "view";
    d.json_keys = {"name", "op", "input", "to_n", "to_c", "to_h", "to_w"};
    d.from_graph_op = GraphOp::kView;
    d.read_json = read_view;
    d.write_json = write_view;
    d.infer_shape = view_shape;
    d.place = place_view;
    d.attributes = view_attributes;
    d.run_host = run_view<OpContext>;
    d.run_host_wide = run_view<WideOpContext>;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
