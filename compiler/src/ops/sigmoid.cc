// sigmoid: y = 1 / (1 + e^-x) (ONNX Sigmoid), on the host. In int8 the input has the scale
// 2^-in_exp and the output 2^-out_exp: q_out = round(y * 2^out_exp) (ties away from zero),
// saturated to int8. The int8 execution is its own reference (one function, double precision).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

int exponent(const NetworkLayer& l, const char* key, int fallback) {
  auto it = l.attrs.find(key);
  return it == l.attrs.end() ? fallback : int(it->second);
}

void read_sigmoid(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  for (const char* key : {"in_exp", "out_exp"}) {
    if (!j.contains(key)) {
      continue;
    }
    if (!j[key].is_number_integer()) {
      throw Error(fmt::format("{}: layer '{}' key '{}' must be an integer", source, l.name, key));
    }
    l.attrs[key] = j[key].get<double>();
  }
}

void write_sigmoid(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["in_exp"] = exponent(l, "in_exp", 4), j["out_exp"] = exponent(l, "out_exp", 7);
}

TensorShape sigmoid_shape(const ShapeContext& ctx) {
  for (const char* key : {"in_exp", "out_exp"}) {
    const int e = exponent(ctx.layer, key, 0);
    if (e < -24 || e > 24) {
      throw Error(fmt::format("sigmoid layer '{}': {} must be in -24..24 (got {})", ctx.layer.name,
                              key, e));
    }
  }
  return ctx.in;
}

Placement place_sigmoid(const NetworkLayer&) {
  return Placement::kHost;
}

std::string sigmoid_attributes(const NetworkLayer& l) {
  return fmt::format("in_exp={} out_exp={}", exponent(l, "in_exp", 4), exponent(l, "out_exp", 7));
}

double logistic(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

NetworkTensor run_sigmoid(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: sigmoid on host", l.name);
  const double in_scale = std::ldexp(1.0, -exponent(l, "in_exp", 4));
  const double out_scale = std::ldexp(1.0, exponent(l, "out_exp", 7));
  NetworkTensor out = ctx.in;
  for (int8_t& q : out.data) {
    q = int8_t(std::clamp(std::lround(logistic(q * in_scale) * out_scale), -128L, 127L));
  }
  return out;
}

FloatTensor sigmoid_float(const NetworkLayer&, const std::vector<const FloatTensor*>& in) {
  FloatTensor out = *in[0];
  for (float& v : out.data) {
    v = float(logistic(double(v)));
  }
  return out;
}

}  // namespace

const OpDef& sigmoid_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "sigmoid";
    d.json_keys = {"name", "op", "input", "in_exp", "out_exp"};
    d.from_graph_op = GraphOp::kSigmoid;
    d.read_json = read_sigmoid;
    d.write_json = write_sigmoid;
    d.infer_shape = sigmoid_shape;
    d.place = place_sigmoid;
    d.attributes = sigmoid_attributes;
    d.run_host = run_sigmoid;
    d.float_reference = sigmoid_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
