// softmax: exp(x - max) / sum along one axis of the NCHW view (1: the features of a matrix or
// a sequence; 3: the last axis of a 4-D value, attention's scores), on the host in float: the
// int8 input dequantized at 2^-in_exp, the result quantized at 2^-out_exp
// (op_common.h: run_in_float).
#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& softmax_attrs() {
  static const std::vector<AttrSpec> specs{
      {"axis", 1, true, 1, 3}, exponent_attr("in_exp", 4), exponent_attr("out_exp", 7)};
  return specs;
}

int attr(const NetworkLayer& l, size_t i) {
  return int(attr_value(l, softmax_attrs()[i]));
}

void read_softmax(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, softmax_attrs());
}

void write_softmax(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, softmax_attrs(), j);
}

TensorShape softmax_shape(const ShapeContext& ctx) {
  check_attrs(ctx.layer, softmax_attrs());
  return ctx.in;
}

Placement place_softmax(const NetworkLayer&) {
  return Placement::kHost;
}

std::string softmax_attributes(const NetworkLayer& l) {
  return fmt::format("axis={} {}", attr(l, 0), float_conversions_text(attr(l, 1), attr(l, 2)));
}

FloatTensor softmax_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  return softmax(*in[0], attr(l, 0));
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_softmax(const Ctx& ctx, std::string& note) {
  note = fmt::format("{}: softmax in f32 on host", ctx.layer.name);
  return in_float(ctx, attr(ctx.layer, 1), attr(ctx.layer, 2),
                  [&](const FloatTensor& x) { return softmax_float(ctx.layer, {&x}); });
}

}  // namespace

const OpDef& softmax_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "softmax";
    d.json_keys = {"name", "op", "input", "axis", "in_exp", "out_exp"};
    d.from_graph_op = GraphOp::kSoftmax;
    d.read_json = read_softmax;
    d.write_json = write_softmax;
    d.infer_shape = softmax_shape;
    d.place = place_softmax;
    d.attributes = softmax_attributes;
    d.run_host = run_softmax<OpContext>;
    d.run_host_wide = run_softmax<WideOpContext>;
    d.float_reference = softmax_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
