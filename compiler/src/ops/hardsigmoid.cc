// hardsigmoid: y = max(0, min(1, alpha * x + beta)) (ONNX HardSigmoid; alpha 0.2 and beta 0.5 by
// default), on the host. In int8 the input has the scale 2^-in_exp and the output 2^-out_exp
// (default 4 and 7): q_out = round(y * 2^out_exp) (ties away from zero), saturated to int8.
// On VTA's ALU when an integer form ((q + b1) * m + r) >> s or round(q * m / 2^s) + c, clamped,
// gives that exact result for all 256 inputs (checked when the form is chosen) and the estimates
// make it faster than the host (choose_placement).
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

// ALU steps on the int32 accumulator, then clamp(lo, hi). Two forms with 16-bit immediates:
// ((q + b1) * m + r) >> s, and round(q * m / 2^s) + c with the rounding half away from zero
// (round_shift_steps): the latter is how a float alpha such as 1/6 breaks the ties of q / 12
// (away from zero on both sides) where the offset b1 would hide q's sign.
struct IntegerForm {
  std::vector<AluStep> steps;
  int lo = 0, hi = 0;
};

bool fits_imm(int64_t v) {
  return v >= -32768 && v <= 32767;
}

// Whether `f` gives the operator's result for every int8 input (the ALU's int32 arithmetic).
bool exact(const HardSigmoid& p, const IntegerForm& f) {
  for (int q = -128; q <= 127; ++q) {
    if (std::clamp(apply_alu_steps(f.steps, q, 0), f.lo, f.hi) != hardsigmoid_q(p, q)) {
      return false;
    }
  }
  return true;
}

// The first exact ((q + b1) * m + r) >> s near y * 2^out = a * (q + b1) + (b - a * b1), most
// precise shift first.
bool offset_form(double a, double b, const HardSigmoid& p, IntegerForm& f) {
  for (int s = 15; s >= 0; --s) {
    const double scale = std::ldexp(1.0, s);
    for (int64_t b1 = std::llround(b / a) - 1; b1 <= std::llround(b / a) + 1; ++b1) {
      for (int64_t m = std::llround(a * scale) - 1; m <= std::llround(a * scale) + 1; ++m) {
        const int64_t r0 = std::llround((b - a * double(b1) + 0.5) * scale);
        for (int64_t r = r0 - 1; r <= r0 + 1; ++r) {
          if (!fits_imm(b1) || !fits_imm(m) || !fits_imm(r)) {
            continue;
          }
          f.steps = {{kAluAdd, int32_t(b1)}, {kAluMul, int32_t(m)}, {kAluAdd, int32_t(r)}};
          if (s) {
            f.steps.push_back({kAluShr, s});
          }
          if (exact(p, f)) {
            return true;
          }
        }
      }
    }
  }
  return false;
}

// The first exact round(q * m / 2^s) + c (|q * m| < 2^30: two sign shifts).
bool rounded_form(double a, double b, const HardSigmoid& p, IntegerForm& f) {
  for (int s = 15; s >= 1; --s) {
    const int64_t m0 = std::llround(a * std::ldexp(1.0, s)), c0 = std::llround(b);
    for (int64_t m = m0 - 1; m <= m0 + 1; ++m) {
      for (int64_t c = c0 - 1; c <= c0 + 1; ++c) {
        if (!fits_imm(m) || !fits_imm(c)) {
          continue;
        }
        f.steps = {{kAluMul, int32_t(m)}};
        const std::vector<AluStep> shift = round_shift_steps(s, 2);
        f.steps.insert(f.steps.end(), shift.begin(), shift.end());
        f.steps.push_back({kAluAdd, int32_t(c)});
        if (exact(p, f)) {
          return true;
        }
      }
    }
  }
  return false;
}

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
  if (offset_form(a, b, p, f) || rounded_form(a, b, p, f)) {
    return f;
  }
  return std::nullopt;
}

AluAddPlan hardsigmoid_plan(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  const std::optional<IntegerForm> f = integer_form(params(l));
  if (!f) {
    throw Error(fmt::format("hardsigmoid layer '{}': ({}) has no exact integer form on the ALU",
                            l.name, hardsigmoid_attributes(l)));
  }
  return AluAddPlan::make_unary(in.n, in.c, in.h, in.w, f->steps, f->lo, f->hi, cfg);
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
