// gelu: y = 0.5 x (1 + erf(x / sqrt 2)) (torch's exact GELU, exported as Div, Erf, Add, Mul,
// Mul and imported as one operator), on the host in float: the int8 input dequantized at
// 2^-in_exp, the result quantized at 2^-out_exp (op_common.h: run_in_float).
#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& gelu_attrs() {
  static const std::vector<AttrSpec> specs{exponent_attr("in_exp", 4), exponent_attr("out_exp", 4)};
  return specs;
}

int exp_of(const NetworkLayer& l, size_t i) {
  return int(attr_value(l, gelu_attrs()[i]));
}

void read_gelu(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, gelu_attrs());
}

void write_gelu(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, gelu_attrs(), j);
}

TensorShape gelu_shape(const ShapeContext& ctx) {
  check_attrs(ctx.layer, gelu_attrs());
  return ctx.in;
}

Placement place_gelu(const NetworkLayer&) {
  return Placement::kHost;
}

std::string gelu_attributes(const NetworkLayer& l) {
  return float_conversions_text(exp_of(l, 0), exp_of(l, 1));
}

FloatTensor gelu_float(const NetworkLayer&, const std::vector<const FloatTensor*>& in) {
  FloatTensor out = *in[0];
  for (float& v : out.data) {
    v = float(gelu(double(v)));
  }
  return out;
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_gelu(const Ctx& ctx, std::string& note) {
  note = fmt::format("{}: gelu in f32 on host", ctx.layer.name);
  return in_float(ctx, exp_of(ctx.layer, 0), exp_of(ctx.layer, 1),
                  [&](const FloatTensor& x) { return gelu_float(ctx.layer, {&x}); });
}

}  // namespace

const OpDef& gelu_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "gelu";
    d.json_keys = {"name", "op", "input", "in_exp", "out_exp"};
    d.from_graph_op = GraphOp::kGelu;
    d.read_json = read_gelu;
    d.write_json = write_gelu;
    d.infer_shape = gelu_shape;
    d.place = place_gelu;
    d.attributes = gelu_attributes;
    d.run_host = run_gelu<OpContext>;
    d.run_host_wide = run_gelu<WideOpContext>;
    d.float_reference = gelu_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
