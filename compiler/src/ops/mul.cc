// mul: a * b of two int8 tensors (scales 2^-a_exp, 2^-b_exp), b of a's shape or one value per
// sample and channel (N x C x 1 x 1: a squeeze-and-excitation scale), to the output scale
// 2^-out_exp: q = round(qa * qb * 2^(out_exp - a_exp - b_exp)) (ties away from zero),
// saturated to int8; on the host.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

constexpr const char* kExponents[] = {"a_exp", "b_exp", "out_exp"};

int exponent(const NetworkLayer& l, const char* key) {
  auto it = l.attrs.find(key);
  return it == l.attrs.end() ? 0 : int(it->second);
}

void read_mul(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  for (const char* key : kExponents) {
    if (!j.contains(key)) {
      continue;
    }
    if (!j[key].is_number_integer()) {
      throw Error(fmt::format("{}: layer '{}' key '{}' must be an integer", source, l.name, key));
    }
    l.attrs[key] = j[key].get<double>();
  }
}

void write_mul(const NetworkLayer& l, nlohmann::ordered_json& j) {
  for (const char* key : kExponents) {
    j[key] = exponent(l, key);
  }
}

TensorShape mul_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  auto it = ctx.shapes.find(l.residual);
  if (it == ctx.shapes.end()) {
    throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, l.residual));
  }
  const TensorShape& b = it->second;
  const bool per_channel = b.n == ctx.in.n && b.c == ctx.in.c && b.h == 1 && b.w == 1;
  if (b != ctx.in && !per_channel) {
    throw Error(
        fmt::format("mul layer '{}': operand '{}' has shape {}, '{}' has {} (the same "
                    "shape, or one value per sample and channel)",
                    l.name, l.input, ctx.in.str(), l.residual, b.str()));
  }
  for (const char* key : kExponents) {
    if (std::abs(exponent(l, key)) > 24) {
      throw Error(fmt::format("mul layer '{}': {} must be in -24..24 (got {})", l.name, key,
                              exponent(l, key)));
    }
  }
  return ctx.in;
}

Placement place_mul(const NetworkLayer&) {
  return Placement::kHost;
}

std::string mul_attributes(const NetworkLayer& l) {
  return fmt::format("a_exp={} b_exp={} out_exp={}", exponent(l, "a_exp"), exponent(l, "b_exp"),
                     exponent(l, "out_exp"));
}

NetworkTensor run_mul(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: mul on host", l.name);
  const NetworkTensor& a = ctx.in;
  const NetworkTensor& b = named_tensor(ctx, l.residual);
  const size_t per = b.data.size() == a.data.size() ? 1 : size_t(a.h) * size_t(a.w);
  // qa * qb fits 15 bits: the scaled product is exact in double.
  const int scale = exponent(l, "out_exp") - exponent(l, "a_exp") - exponent(l, "b_exp");
  NetworkTensor out = a;
  for (size_t i = 0; i < out.data.size(); ++i) {
    const double p = std::ldexp(double(int(a.data[i]) * int(b.data[i / per])), scale);
    out.data[i] = int8_t(std::clamp(std::lround(p), -128L, 127L));
  }
  return out;
}

}  // namespace

const OpDef& mul_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "mul";
    d.json_keys = {"name", "op", "input", "residual", "a_exp", "b_exp", "out_exp"};
    d.from_graph_op = GraphOp::kMul;
    d.read_json = read_mul;
    d.write_json = write_mul;
    d.infer_shape = mul_shape;
    d.place = place_mul;
    d.attributes = mul_attributes;
    d.run_host = run_mul;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
