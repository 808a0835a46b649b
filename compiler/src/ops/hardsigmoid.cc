// hardsigmoid: y = max(0, min(1, alpha * x + beta)) (ONNX HardSigmoid; alpha 0.2 and beta 0.5 by
// default), on the host. In int8 the input has the scale 2^-in_exp and the output 2^-out_exp
// (default 4 and 7): q_out = round(y * 2^out_exp) (ties away from zero), saturated to int8.
// On VTA's ALU when an integer form ((q + b1) * m + r) >> s, clamped, gives that exact result
// for all 256 inputs (checked when the form is chosen) and the estimates make it faster than
// the host (choose_placement).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/compiler/run/alu_runner.h"
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

// The int8 result for input q.
int8_t hardsigmoid_q(const HardSigmoid& p, int q) {
  const double in_scale = std::ldexp(1.0, -p.in_exp), out_scale = std::ldexp(1.0, p.out_exp);
  const long y = std::lround(hard_sigmoid(p, q * in_scale) * out_scale);
  return int8_t(std::clamp(y, -128L, 127L));
}

NetworkTensor run_hardsigmoid(const OpContext& ctx, std::string& note) {
  const HardSigmoid p = params(ctx.layer);
  note = fmt::format("{}: hardsigmoid on host", ctx.layer.name);
  NetworkTensor out = ctx.in;
  for (int8_t& q : out.data) {
    q = hardsigmoid_q(p, q);
  }
  return out;
}

// clamp(((q + b1) * m + r) >> s, lo, hi): ALU immediates (16-bit) and an int32 accumulator.
struct IntegerForm {
  int32_t b1 = 0, m = 0, r = 0;
  int s = 0, lo = 0, hi = 0;
};

bool fits_imm(int64_t v) {
  return v >= -32768 && v <= 32767;
}

// Whether `f` gives the operator's result for every int8 input.
bool exact(const HardSigmoid& p, const IntegerForm& f) {
  for (int q = -128; q <= 127; ++q) {
    const int64_t acc = (int64_t(q) + f.b1) * f.m + f.r;
    if (acc < int64_t(INT32_MIN) || acc > int64_t(INT32_MAX)) {
      return false;
    }
    const int64_t v = std::clamp<int64_t>(acc >> f.s, f.lo, f.hi);  // arithmetic, as the ALU
    if (v != hardsigmoid_q(p, q)) {
      return false;
    }
  }
  return true;
}

// The first exact form near y * 2^out = a * (q + b1) + (b - a * b1), most precise shift first.
std::optional<IntegerForm> integer_form(const HardSigmoid& p) {
  const double a = p.alpha * std::ldexp(1.0, p.out_exp - p.in_exp);
  const double b = p.beta * std::ldexp(1.0, p.out_exp);
  if (a == 0 || !std::isfinite(b / a) || std::fabs(b / a) > 32767) {
    return std::nullopt;
  }
  IntegerForm f;
  // The operator is monotone: its outputs lie between those of the extreme inputs.
  f.lo = std::min<int>(hardsigmoid_q(p, -128), hardsigmoid_q(p, 127));
  f.hi = std::max<int>(hardsigmoid_q(p, -128), hardsigmoid_q(p, 127));
  for (int s = 15; s >= 0; --s) {
    const double scale = std::ldexp(1.0, s);
    for (int64_t b1 = std::llround(b / a) - 1; b1 <= std::llround(b / a) + 1; ++b1) {
      for (int64_t m = std::llround(a * scale) - 1; m <= std::llround(a * scale) + 1; ++m) {
        const int64_t r0 = std::llround((b - a * double(b1) + 0.5) * scale);
        for (int64_t r = r0 - 1; r <= r0 + 1; ++r) {
          if (!fits_imm(b1) || !fits_imm(m) || !fits_imm(r)) {
            continue;
          }
          f.b1 = int32_t(b1), f.m = int32_t(m), f.r = int32_t(r), f.s = s;
          if (exact(p, f)) {
            return f;
          }
        }
      }
    }
  }
  return std::nullopt;
}

AluAddPlan hardsigmoid_plan(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  const std::optional<IntegerForm> f = integer_form(params(l));
  if (!f) {
    throw Error(fmt::format("hardsigmoid layer '{}': ({}) has no exact integer form on the ALU",
                            l.name, hardsigmoid_attributes(l)));
  }
  std::vector<AluStep> ops{{kAluAdd, f->b1}, {kAluMul, f->m}, {kAluAdd, f->r}};
  if (f->s) {
    ops.push_back({kAluShr, f->s});
  }
  return AluAddPlan::make_unary(in.n, in.c, in.h, in.w, ops, f->lo, f->hi, cfg);
}

// One operation per value; the input read and the output written once.
HostWorkCount hardsigmoid_host_work(const NetworkLayer&, const TensorShape& in) {
  const uint64_t values = uint64_t(in.n) * uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w);
  return {HostWork::kElementwise, values, 2 * values};
}

void make_hardsigmoid_job(const OpContext& ctx, NetworkLayerJob& job) {
  job.conv.x = ctx.in.data;
}

NetworkTensor hardsigmoid_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  const HardSigmoid p = params(l);
  NetworkTensor out = job.input_shape;
  out.data = job.conv.x;
  for (int8_t& q : out.data) {
    q = hardsigmoid_q(p, q);
  }
  return out;
}

VtaLayerResult run_hardsigmoid_job(const Target& target, const Network&, const NetworkLayer& l,
                                   const NetworkLayerJob& job, const NetworkOptions& opt) {
  const NetworkTensor& s = job.input_shape;
  const AluAddPlan plan = hardsigmoid_plan(l, TensorShape{s.n, s.c, s.h, s.w}, target.config);
  std::vector<int8_t> ref;
  if (opt.check) {
    ref = hardsigmoid_job_reference(l, job).data;
  }
  LayerRun run = run_alu_add(target, l.name, plan, job.conv.x, {}, opt.check ? &ref : nullptr);
  NetworkTensor out{s.n, s.c, s.h, s.w, run.out};
  return {std::move(run), std::move(out)};
}

std::shared_ptr<const RecordingSink> lower_hardsigmoid(const NetworkLayer& l, const TensorShape& in,
                                                       const HwConfig& cfg) {
  return lower_alu_add(hardsigmoid_plan(l, in, cfg));
}

uint64_t hardsigmoid_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return alu_add_cycle_estimate(hardsigmoid_plan(l, in, cfg), cfg);
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
    d.host_work = hardsigmoid_host_work;
    d.vta.make_job = make_hardsigmoid_job;
    d.vta.reference = hardsigmoid_job_reference;
    d.vta.run = run_hardsigmoid_job;
    d.vta.lower = lower_hardsigmoid;
    d.vta.estimate_cycles = hardsigmoid_cycles;
    d.float_reference = hardsigmoid_float;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
