// add_constant: constants joined to an activation, on the host in float: `rows` constant rows
// put before each of `sequences` sequences of the view N*S x C x 1 x 1 (a Concat with a
// vision transformer's class token) and / or a constant tensor added (its position
// embedding). The values are the layer's float parameters (NetworkLayer::float_params: the
// `prefix` values, then the `addend` ones; absent: zeros); the int8 input is dequantized at
// 2^-in_exp and the result quantized at 2^-out_exp (op_common.h: run_in_float).
#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& add_constant_attrs() {
  static const std::vector<AttrSpec> specs{{"sequences", 1, true, 1, kMaxTensorDim},
                                           {"rows", 0, true, 0, kMaxTensorDim},
                                           {"prefix", 0, true, 0, 1e12},
                                           {"addend", 0, true, 0, 1e12},
                                           exponent_attr("in_exp", 4),
                                           exponent_attr("out_exp", 4)};
  return specs;
}

int attr(const NetworkLayer& l, size_t i) {
  return int(attr_value(l, add_constant_attrs()[i]));
}

void read_add_constant(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, add_constant_attrs());
}

void write_add_constant(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, add_constant_attrs(), j);
}

// The prefix and addend values: the float parameters, or zeros without them.
void constants(const NetworkLayer& l, std::vector<float>& prefix, std::vector<float>& addend) {
  const size_t np = size_t(attr_value(l, add_constant_attrs()[2]));
  const size_t na = size_t(attr_value(l, add_constant_attrs()[3]));
  if (!l.float_params) {
    prefix.assign(np, 0.0f), addend.clear();
    return;
  }
  prefix.assign(l.float_params->begin(), l.float_params->begin() + long(np));
  addend.assign(l.float_params->begin() + long(np), l.float_params->begin() + long(np + na));
}

TensorShape add_constant_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  check_attrs(l, add_constant_attrs());
  const size_t np = size_t(attr_value(l, add_constant_attrs()[2]));
  const size_t na = size_t(attr_value(l, add_constant_attrs()[3]));
  if (l.float_params && l.float_params->size() != np + na) {
    throw Error(
        fmt::format("add_constant layer '{}': {} float values for {} prefix and {} addend "
                    "values",
                    l.name, l.float_params->size(), np, na));
  }
  std::vector<int> out;
  const std::string e = add_constant_dims({ctx.in.n, ctx.in.c, ctx.in.h, ctx.in.w}, attr(l, 0),
                                          attr(l, 1), np, l.float_params ? na : 0, out);
  if (!e.empty()) {
    throw Error(fmt::format("add_constant layer '{}': {}", l.name, e));
  }
  return TensorShape{out[0], out[1], out[2], out[3]};
}

Placement place_add_constant(const NetworkLayer&) {
  return Placement::kHost;
}

std::string add_constant_attributes(const NetworkLayer& l) {
  return fmt::format("sequences={} rows={} constants=f32[{}+{}] {}", attr(l, 0), attr(l, 1),
                     attr(l, 2), attr(l, 3), float_conversions_text(attr(l, 4), attr(l, 5)));
}

FloatTensor add_constant_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  std::vector<float> prefix, addend;
  constants(l, prefix, addend);
  return add_constant(*in[0], attr(l, 0), attr(l, 1), prefix, addend);
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_add_constant(const Ctx& ctx, std::string& note) {
  note = fmt::format("{}: add_constant ({} rows before each of {} sequences{}) in f32 on host",
                     ctx.layer.name, attr(ctx.layer, 1), attr(ctx.layer, 0),
                     attr(ctx.layer, 3) ? ", a tensor added" : "");
  return in_float(ctx, attr(ctx.layer, 4), attr(ctx.layer, 5),
                  [&](const FloatTensor& x) { return add_constant_float(ctx.layer, {&x}); });
}

}  // namespace

const OpDef& add_constant_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "add_constant";
    d.json_keys = {"name",   "op",     "input",  "sequences", "rows",
                   "prefix", "addend", "in_exp", "out_exp"};
    d.from_graph_op = GraphOp::kAddConstant;
    d.read_json = read_add_constant;
    d.write_json = write_add_constant;
    d.infer_shape = add_constant_shape;
    d.place = place_add_constant;
    d.attributes = add_constant_attributes;
    d.run_host = run_add_constant<OpContext>;
    d.run_host_wide = run_add_constant<WideOpContext>;
    d.float_reference = add_constant_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
