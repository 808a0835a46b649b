// scale: y = alpha x + beta with scalar constants (an activation's Mul, Div, Add or Sub by a
// constant: attention's 1 / sqrt(d)), or alpha one value per channel of the NCHW view, the
// layer's float parameters (Swin v2's logit scale per head), on the host in float: the int8
// input dequantized at 2^-in_exp, the result quantized at 2^-out_exp (op_common.h:
// run_in_float).
#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& scale_attrs() {
  static const std::vector<AttrSpec> specs{{"alpha", 1, false, -1e30, 1e30},
                                           {"beta", 0, false, -1e30, 1e30},
                                           exponent_attr("in_exp", 4),
                                           exponent_attr("out_exp", 4)};
  return specs;
}

double attr(const NetworkLayer& l, size_t i) {
  return attr_value(l, scale_attrs()[i]);
}

void read_scale(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, scale_attrs());
}

void write_scale(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, scale_attrs(), j);
}

TensorShape scale_shape(const ShapeContext& ctx) {
  check_attrs(ctx.layer, scale_attrs());
  if (ctx.layer.float_params && ctx.layer.float_params->size() != size_t(ctx.in.c)) {
    throw Error(fmt::format("scale layer '{}': {} alpha values for {} channels", ctx.layer.name,
                            ctx.layer.float_params->size(), ctx.in.c));
  }
  return ctx.in;
}

Placement place_scale(const NetworkLayer&) {
  return Placement::kHost;
}

std::string scale_attributes(const NetworkLayer& l) {
  return fmt::format("alpha={} beta={:g} {}",
                     l.float_params ? fmt::format("f32[{}]", l.float_params->size())
                                    : fmt::format("{:g}", attr(l, 0)),
                     attr(l, 1), float_conversions_text(int(attr(l, 2)), int(attr(l, 3))));
}

FloatTensor scale_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  return scale(*in[0], attr(l, 0), attr(l, 1),
               l.float_params ? *l.float_params : std::vector<float>{});
}

NetworkTensor run_scale(const OpContext& ctx, std::string& note) {
  note = fmt::format("{}: scale in f32 on host", ctx.layer.name);
  return run_in_float(ctx.in, int(attr(ctx.layer, 2)), int(attr(ctx.layer, 3)),
                      [&](const FloatTensor& x) { return scale_float(ctx.layer, {&x}); });
}

}  // namespace

const OpDef& scale_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "scale";
    d.json_keys = {"name", "op", "input", "alpha", "beta", "in_exp", "out_exp"};
    d.from_graph_op = GraphOp::kScale;
    d.read_json = read_scale;
    d.write_json = write_scale;
    d.infer_shape = scale_shape;
    d.place = place_scale;
    d.attributes = scale_attributes;
    d.run_host = run_scale;
    d.float_reference = scale_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
