// mul: a * b of two int8 tensors (scales 2^-a_exp, 2^-b_exp), b of a's shape or one value per
// sample and channel (N x C x 1 x 1: a squeeze-and-excitation scale), to the output scale
// 2^-out_exp: q = round(qa * qb * 2^(out_exp - a_exp - b_exp)) (ties away from zero),
// saturated to int8. On VTA's ALU (codegen/alu_elementwise.h) when the estimates make it faster
// than the host (choose_placement): qa * qb, then (p - [p < 0] + 2^(r-1)) >> r for a right shift
// r (round half away from zero, round_shift_steps), or a left shift; the form is checked on all
// 65536 int8 pairs when chosen.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "ops/binary_alu_job.h"
#include "ops/op_common.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

constexpr const char* kExponents[] = {"a_exp", "b_exp", "out_exp"};

int exponent(const NetworkLayer& l, const char* key) {
  auto it = l.attrs.find(key);
  return it == l.attrs.end() ? 0 : int(it->second);
}

// b of N x C x 1 x 1 (the JSON key "per_channel": true; the importer sets it).
bool per_channel(const NetworkLayer& l) {
  auto it = l.attrs.find("per_channel");
  return it != l.attrs.end() && it->second != 0;
}

void read_mul(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  if (j.contains("per_channel")) {
    if (!j["per_channel"].is_boolean()) {
      throw Error(
          fmt::format("{}: layer '{}' key 'per_channel' must be true or false", source, l.name));
    }
    l.attrs["per_channel"] = j["per_channel"].get<bool>() ? 1 : 0;
  }
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
  if (per_channel(l)) {
    j["per_channel"] = true;
  }
}

TensorShape mul_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  auto it = ctx.shapes.find(l.residual);
  if (it == ctx.shapes.end()) {
    throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, l.residual));
  }
  const TensorShape& b = it->second;
  const TensorShape want = per_channel(l) ? TensorShape{ctx.in.n, ctx.in.c, 1, 1} : ctx.in;
  if (b != want) {
    throw Error(fmt::format("mul layer '{}': operand '{}' has shape {}, '{}' has {} ({})", l.name,
                            l.input, ctx.in.str(), l.residual, b.str(),
                            per_channel(l) ? "with \"per_channel\": true one value per sample "
                                             "and channel"
                                           : "the same shape; one value per sample and channel "
                                             "needs \"per_channel\": true"));
  }
  for (const char* key : kExponents) {
    if (std::abs(exponent(l, key)) > 24) {
      throw Error(fmt::format("mul layer '{}': {} must be in -24..24 (got {})", l.name, key,
                              exponent(l, key)));
    }
  }
  return ctx.in;
}

// Without a design to compare on (choose_placement decides with one).
Placement place_mul(const NetworkLayer&) {
  return Placement::kHost;
}

std::string mul_attributes(const NetworkLayer& l) {
  return fmt::format("a_exp={} b_exp={} out_exp={}{}", exponent(l, "a_exp"), exponent(l, "b_exp"),
                     exponent(l, "out_exp"), per_channel(l) ? " per_channel" : "");
}

int product_scale(const NetworkLayer& l) {
  return exponent(l, "out_exp") - exponent(l, "a_exp") - exponent(l, "b_exp");
}

// The int8 product of qa and qb at 2^scale. qa * qb fits 15 bits: the scaled product is exact
// in double.
int8_t mul_q(int qa, int qb, int scale) {
  const double p = std::ldexp(double(qa * qb), scale);
  return int8_t(std::clamp(std::lround(p), -128L, 127L));
}

NetworkTensor mul_reference(const NetworkLayer& l, const NetworkTensor& a,
                            const std::vector<int8_t>& b) {
  const size_t per = b.size() == a.data.size() ? 1 : size_t(a.h) * size_t(a.w);
  const int scale = product_scale(l);
  NetworkTensor out = a;
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = mul_q(a.data[i], b[i / per], scale);
  }
  return out;
}

NetworkTensor run_mul(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: mul on host", l.name);
  return mul_reference(l, ctx.in, named_tensor(ctx, l.residual).data);
}

// The ALU steps of the product at 2^scale before the int8 clamp. |qa * qb| <= 2^14.
std::vector<AluStep> mul_steps(int scale) {
  std::vector<AluStep> s{{kAluMul, 0, true}};  // a = p = qa * qb
  if (scale > 15) {                            // any p != 0 saturates: -1..1 shifted out of int8
    s.insert(s.end(), {{kAluMax, -1}, {kAluMin, 1}, {kAluShr, -15}});
  } else if (scale < -15) {  // |p| / 2^16 <= 1/4 rounds to 0
    s.push_back({kAluMul, 0});
  } else {
    const std::vector<AluStep> r = round_shift_steps(-scale, 1);
    s.insert(s.end(), r.begin(), r.end());
  }
  return s;
}

// Whether `steps`, clamped to int8, give the operator's result for every pair of int8 values.
bool exact(const std::vector<AluStep>& steps, int scale) {
  for (int qa = -128; qa <= 127; ++qa) {
    for (int qb = -128; qb <= 127; ++qb) {
      const int32_t v = std::clamp(apply_alu_steps(steps, qa, qb), -128, 127);
      if (v != mul_q(qa, qb, scale)) {
        return false;
      }
    }
  }
  return true;
}

AluAddPlan mul_plan(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  const int scale = product_scale(l);
  const std::vector<AluStep> steps = mul_steps(scale);
  if (!exact(steps, scale)) {
    throw Error(fmt::format("mul layer '{}': ({}) has no exact integer form on the ALU", l.name,
                            mul_attributes(l)));
  }
  return AluAddPlan::make_binary(in.n, in.c, in.h, in.w, per_channel(l), steps, -128, 127, cfg);
}

// One operation per value; both operands read and the output written once.
HostWorkCount mul_host_work(const NetworkLayer& l, const TensorShape& in) {
  const uint64_t values = uint64_t(in.n) * uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w);
  const uint64_t b = per_channel(l) ? uint64_t(in.n) * uint64_t(in.c) : values;
  return {HostWork::kElementwise, values, 2 * values + b};
}

// The job's input is a, its residual b.
NetworkTensor mul_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  return binary_alu_job_reference(l, job, mul_reference);
}

VtaLayerResult run_mul_job(const Target& target, const Network&, const NetworkLayer& l,
                           const NetworkLayerJob& job, const NetworkOptions& opt) {
  return run_binary_alu_job(target, l, job, opt, mul_plan, mul_reference);
}

std::shared_ptr<const RecordingSink> lower_mul(const NetworkLayer& l, const TensorShape& in,
                                               const HwConfig& cfg) {
  return lower_alu_add(mul_plan(l, in, cfg));
}

uint64_t mul_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return alu_add_cycle_estimate(mul_plan(l, in, cfg), cfg);
}

}  // namespace

const OpDef& mul_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "mul";
    d.json_keys = {"name", "op", "input", "residual", "a_exp", "b_exp", "out_exp", "per_channel"};
    d.from_graph_op = GraphOp::kMul;
    d.read_json = read_mul;
    d.write_json = write_mul;
    d.infer_shape = mul_shape;
    d.place = place_mul;
    d.attributes = mul_attributes;
    d.run_host = run_mul;
    d.host_work = mul_host_work;
    d.vta.make_job = make_binary_alu_job;
    d.vta.reference = mul_job_reference;
    d.vta.run = run_mul_job;
    d.vta.lower = lower_mul;
    d.vta.estimate_cycles = mul_cycles;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
