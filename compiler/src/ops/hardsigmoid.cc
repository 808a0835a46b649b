// hardsigmoid: y = max(0, min(1, alpha * x + beta)) (ONNX HardSigmoid; alpha 0.2 and beta 0.5 by
// default), on the host. In int8 the input has the scale 2^-in_exp and the output 2^-out_exp
// (default 4 and 7): q_out = round(y * 2^out_exp) (ties away from zero), saturated to int8.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

struct HardSigmoid {
  double alpha = 0.2, beta = 0.5;
  int in_exp = 4, out_exp = 7;
};

double attr_or(const NetworkLayer& l, const char* key, double fallback) {
  auto it = l.attrs.find(key);
  return it == l.attrs.end() ? fallback : it->second;
}

HardSigmoid params(const NetworkLayer& l) {
  const HardSigmoid d;
  return HardSigmoid{attr_or(l, "alpha", d.alpha), attr_or(l, "beta", d.beta),
                     int(attr_or(l, "in_exp", d.in_exp)), int(attr_or(l, "out_exp", d.out_exp))};
}

void read_hardsigmoid(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  for (const char* key : {"alpha", "beta", "in_exp", "out_exp"}) {
    if (!j.contains(key)) {
      continue;
    }
    if (!j[key].is_number()) {
      throw Error(fmt::format("{}: layer '{}' key '{}' must be a number", source, l.name, key));
    }
    l.attrs[key] = j[key].get<double>();
  }
}

void write_hardsigmoid(const NetworkLayer& l, nlohmann::ordered_json& j) {
  const HardSigmoid p = params(l);
  j["alpha"] = p.alpha, j["beta"] = p.beta, j["in_exp"] = p.in_exp, j["out_exp"] = p.out_exp;
}

TensorShape hardsigmoid_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  const HardSigmoid p = params(l);
  if (!std::isfinite(p.alpha) || !std::isfinite(p.beta)) {
    throw Error(fmt::format("hardsigmoid layer '{}': alpha and beta must be finite", l.name));
  }
  for (const char* key : {"in_exp", "out_exp"}) {
    const double e = attr_or(l, key, 0);
    if (e != std::floor(e) || e < -24 || e > 24) {
      throw Error(fmt::format("hardsigmoid layer '{}': {} must be an integer in -24..24 (got {:g})",
                              l.name, key, e));
    }
  }
  return ctx.in;
}

Placement place_hardsigmoid(const NetworkLayer&) {
  return Placement::kHost;
}

std::string hardsigmoid_attributes(const NetworkLayer& l) {
  const HardSigmoid p = params(l);
  return fmt::format("alpha={:g} beta={:g} in_exp={} out_exp={}", p.alpha, p.beta, p.in_exp,
                     p.out_exp);
}

double hard_sigmoid(const HardSigmoid& p, double x) {
  return std::clamp(p.alpha * x + p.beta, 0.0, 1.0);
}

NetworkTensor run_hardsigmoid(const OpContext& ctx, std::string& note) {
  const HardSigmoid p = params(ctx.layer);
  note = fmt::format("{}: hardsigmoid on host", ctx.layer.name);
  NetworkTensor out = ctx.in;
  const double in_scale = std::ldexp(1.0, -p.in_exp), out_scale = std::ldexp(1.0, p.out_exp);
  for (int8_t& q : out.data) {
    const long y = std::lround(hard_sigmoid(p, q * in_scale) * out_scale);
    q = int8_t(std::clamp(y, -128L, 127L));
  }
  return out;
}

FloatTensor hardsigmoid_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  const HardSigmoid p = params(l);
  FloatTensor out = *in[0];
  for (float& v : out.data) {
    v = float(hard_sigmoid(p, double(v)));
  }
  return out;
}

}  // namespace

const OpDef& hardsigmoid_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "hardsigmoid";
    d.from_graph_op = GraphOp::kHardSigmoid;
    d.json_keys = {"name", "op", "input", "alpha", "beta", "in_exp", "out_exp"};
    d.read_json = read_hardsigmoid;
    d.write_json = write_hardsigmoid;
    d.infer_shape = hardsigmoid_shape;
    d.place = place_hardsigmoid;
    d.attributes = hardsigmoid_attributes;
    d.run_host = run_hardsigmoid;
    d.float_reference = hardsigmoid_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
