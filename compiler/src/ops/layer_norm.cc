// layer_norm: (x - mean) / sqrt(var + eps) * gain + bias along one axis of the NCHW view (1:
// the features of a matrix or a sequence; 3: the last axis of a 4-D value), gain and bias the
// layer's float parameters (NetworkLayer::float_params; absent: 1 and 0), on the host in
// float: the int8 input dequantized at 2^-in_exp, the result quantized at 2^-out_exp
// (op_common.h: run_in_float). With "l2": 1, x / max(||x||_2, eps) * gain + bias (an L2
// normalisation, torch's F.normalize: Swin v2's cosine attention); the key is written only then.
#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& layer_norm_attrs() {
  static const std::vector<AttrSpec> specs{{"axis", 1, true, 1, 3},
                                           {"eps", 1e-5, false, 0, 1},
                                           exponent_attr("in_exp", 4),
                                           exponent_attr("out_exp", 4)};
  return specs;
}

// The L2 form's flag, apart: written only when set, so that the other layers' JSON is as before.
const std::vector<AttrSpec>& l2_attr() {
  static const std::vector<AttrSpec> specs{{"l2", 0, true, 0, 1}};
  return specs;
}

double attr(const NetworkLayer& l, size_t i) {
  return attr_value(l, layer_norm_attrs()[i]);
}

bool is_l2(const NetworkLayer& l) {
  return attr_value(l, l2_attr()[0]) != 0;
}

void read_layer_norm(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, layer_norm_attrs());
  read_attrs(j, source, l, l2_attr());
}

void write_layer_norm(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, layer_norm_attrs(), j);
  if (is_l2(l)) {
    write_attrs(l, l2_attr(), j);
  }
}

int axis_size(const TensorShape& s, int axis) {
  return axis == 1 ? s.c : axis == 2 ? s.h : s.w;
}

TensorShape layer_norm_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  check_attrs(l, layer_norm_attrs());
  check_attrs(l, l2_attr());
  const size_t len = size_t(axis_size(ctx.in, int(attr(l, 0))));
  if (l.float_params && l.float_params->size() != 2 * len) {
    throw Error(fmt::format("layer_norm layer '{}': {} gain and bias values for an axis of {}",
                            l.name, l.float_params->size(), len));
  }
  return ctx.in;
}

Placement place_layer_norm(const NetworkLayer&) {
  return Placement::kHost;
}

std::string layer_norm_attributes(const NetworkLayer& l) {
  return fmt::format(
      "{}axis={:g} eps={:g}{} {}", is_l2(l) ? "l2 " : "", attr(l, 0), attr(l, 1),
      l.float_params ? fmt::format(" gain,bias=f32[2x{}]", l.float_params->size() / 2) : "",
      float_conversions_text(int(attr(l, 2)), int(attr(l, 3))));
}

FloatTensor layer_norm_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  std::vector<float> gain, bias;
  if (l.float_params) {
    const auto half = l.float_params->begin() + long(l.float_params->size() / 2);
    gain.assign(l.float_params->begin(), half);
    bias.assign(half, l.float_params->end());
  }
  return layer_norm(*in[0], int(attr(l, 0)), attr(l, 1), gain, bias, is_l2(l));
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_layer_norm(const Ctx& ctx, std::string& note) {
  note = fmt::format("{}: layer_norm{} in f32 on host", ctx.layer.name,
                     is_l2(ctx.layer) ? " (l2)" : "");
  return in_float(ctx, int(attr(ctx.layer, 2)), int(attr(ctx.layer, 3)),
                  [&](const FloatTensor& x) { return layer_norm_float(ctx.layer, {&x}); });
}

}  // namespace

const OpDef& layer_norm_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "layer_norm";
    d.json_keys = {"name", "op", "input", "axis", "eps", "l2", "in_exp", "out_exp"};
    d.from_graph_op = GraphOp::kLayerNorm;
    d.read_json = read_layer_norm;
    d.write_json = write_layer_norm;
    d.infer_shape = layer_norm_shape;
    d.place = place_layer_norm;
    d.attributes = layer_norm_attributes;
    d.run_host = run_layer_norm<OpContext>;
    d.run_host_wide = run_layer_norm<WideOpContext>;
    d.float_reference = layer_norm_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
