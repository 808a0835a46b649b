#include "ops/host_activation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

int exponent(const NetworkLayer& l, const char* key, int fallback) {
  auto it = l.attrs.find(key);
  return it == l.attrs.end() ? fallback : int(it->second);
}

void read_activation(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
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

void write_activation(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["in_exp"] = exponent(l, "in_exp", 4), j["out_exp"] = exponent(l, "out_exp", 7);
}

TensorShape activation_shape(const ShapeContext& ctx) {
  for (const char* key : {"in_exp", "out_exp"}) {
    const int e = exponent(ctx.layer, key, 0);
    if (e < -24 || e > 24) {
      throw Error(fmt::format("{} layer '{}': {} must be in -24..24 (got {})", ctx.layer.op,
                              ctx.layer.name, key, e));
    }
  }
  return ctx.in;
}

Placement place_activation(const NetworkLayer&) {
  return Placement::kHost;
}

std::string activation_attributes(const NetworkLayer& l) {
  return fmt::format("in_exp={} out_exp={}", exponent(l, "in_exp", 4), exponent(l, "out_exp", 7));
}

// The function of each registered activation, by its op name (the table's entries are plain
// function pointers, which carry no data of their own).
std::map<std::string, double (*)(double)>& functions() {
  static std::map<std::string, double (*)(double)> f;
  return f;
}

double (*function_of(const NetworkLayer& l))(double) {
  return functions().at(l.op);
}

NetworkTensor run_activation(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: {} on host", l.name, l.op);
  double (*f)(double) = function_of(l);
  const double in_scale = std::ldexp(1.0, -exponent(l, "in_exp", 4));
  const double out_scale = std::ldexp(1.0, exponent(l, "out_exp", 7));
  NetworkTensor out = ctx.in;
  for (int8_t& q : out.data) {
    q = int8_t(std::clamp(std::lround(f(q * in_scale) * out_scale), -128L, 127L));
  }
  return out;
}

FloatTensor activation_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  double (*f)(double) = function_of(l);
  FloatTensor out = *in[0];
  for (float& v : out.data) {
    v = float(f(double(v)));
  }
  return out;
}

}  // namespace

OpDef host_activation_op(const char* name, GraphOp op, double (*f)(double)) {
  functions()[name] = f;
  OpDef d;
  d.name = name;
  d.json_keys = {"name", "op", "input", "in_exp", "out_exp"};
  d.from_graph_op = op;
  d.read_json = read_activation;
  d.write_json = write_activation;
  d.infer_shape = activation_shape;
  d.place = place_activation;
  d.attributes = activation_attributes;
  d.run_host = run_activation;
  d.float_reference = activation_float;
  return d;
}

}  // namespace vta::compiler::ops
