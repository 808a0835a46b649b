// batch_matmul: the product of two int8 activations, per sample n and channel c the H x W
// matrices (A: N x C x M x K, the input; B: N x C x K x P, the "residual" operand): attention's
// scores (Q K^T) and its weighted values. On the host, exact: int32 accumulation, then the
// power-of-two requantisation q = round(acc * 2^(out_exp - a_exp - b_exp)) (ties away from
// zero), saturated to int8.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& matmul_attrs() {
  static const std::vector<AttrSpec> specs{exponent_attr("a_exp", 4), exponent_attr("b_exp", 4),
                                           exponent_attr("out_exp", 4)};
  return specs;
}

int attr(const NetworkLayer& l, size_t i) {
  return int(attr_value(l, matmul_attrs()[i]));
}

void read_matmul(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, matmul_attrs());
}

void write_matmul(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, matmul_attrs(), j);
}

TensorShape matmul_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  check_attrs(l, matmul_attrs());
  auto b = ctx.shapes.find(l.residual);
  if (b == ctx.shapes.end()) {
    throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, l.residual));
  }
  const TensorShape& a = ctx.in;
  std::vector<int> out;
  if (std::string e = batch_matmul_dims({a.n, a.c, a.h, a.w},
                                        {b->second.n, b->second.c, b->second.h, b->second.w}, out);
      !e.empty()) {
    throw Error(fmt::format("batch_matmul layer '{}': {}", l.name, e));
  }
  return TensorShape{out[0], out[1], out[2], out[3]};
}

Placement place_matmul(const NetworkLayer&) {
  return Placement::kHost;
}

std::string matmul_attributes(const NetworkLayer& l) {
  return fmt::format("{} i8 x i8 -> i32 shift={}", attrs_text(l, matmul_attrs()),
                     attr(l, 0) + attr(l, 1) - attr(l, 2));
}

NetworkTensor run_matmul(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  const NetworkTensor& a = ctx.in;
  const NetworkTensor& b = named_tensor(ctx, l.residual);
  note = fmt::format("{}: batch_matmul {}x{}x{} x {} planes (int8, int32 accumulation) on host",
                     l.name, a.h, a.w, b.w, a.n * a.c);
  const size_t m = size_t(a.h), k = size_t(a.w), p = size_t(b.w);
  const int scale = attr(l, 2) - attr(l, 0) - attr(l, 1);
  NetworkTensor out{a.n, a.c, a.h, b.w, std::vector<int8_t>(size_t(a.n * a.c) * m * p)};
  for (size_t pl = 0; pl < size_t(a.n * a.c); ++pl) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < p; ++j) {
        int32_t acc = 0;  // |acc| <= k * 2^14 < 2^31 for k <= 65535
        for (size_t t = 0; t < k; ++t) {
          acc += int32_t(a.data[(pl * m + i) * k + t]) * int32_t(b.data[(pl * k + t) * p + j]);
        }
        const double q = std::round(std::ldexp(double(acc), scale));  // exact: a power of two
        out.data[(pl * m + i) * p + j] = int8_t(std::clamp(q, -128.0, 127.0));
      }
    }
  }
  return out;
}

}  // namespace

const OpDef& batch_matmul_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "batch_matmul";
    d.json_keys = {"name", "op", "input", "residual", "a_exp", "b_exp", "out_exp"};
    d.from_graph_op = GraphOp::kBatchMatMul;
    d.read_json = read_matmul;
    d.write_json = write_matmul;
    d.infer_shape = matmul_shape;
    d.place = place_matmul;
    d.attributes = matmul_attributes;
    d.run_host = run_matmul;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
