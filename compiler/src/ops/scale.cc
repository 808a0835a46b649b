// scale: y = alpha x + beta with scalar constants (an activation's Mul, Div, Add or Sub by a
// constant: attention's 1 / sqrt(d)), or alpha one value per channel of the NCHW view, the
// layer's float parameters (Swin v2's logit scale per head), on the host in float: the int8
// input dequantized at 2^-in_exp, the result quantized at 2^-out_exp (op_common.h:
// run_in_float). With scalar alpha and beta the result is a function of the int8 input alone:
// where an integer form round((q * m + c) / 2^s) (16-bit m and c, s in 0..15, ties away from
// zero) gives the host's result for all 256 inputs (checked when chosen: a power-of-two alpha
// such as x * 0.25 or x / 8 exactly, and with 8-bit inputs most scalar alphas), the layer runs on
// VTA's ALU when the estimates make it faster (choose_placement). A per-channel alpha, or
// constants beyond 16-bit immediates, stay on the host.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/ops/float_math.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& scale_attrs() {
  static const std::vector<AttrSpec> specs{{"alpha", 1, false, -1e30, 1e30},
                                           {"beta", 0, false, -1e30, 1e30},
                                           exponent_attr("in_exp", 4),
                                           exponent_attr("out_exp", 4)};
  return specs;
}

double attr(const NetworkLayer& l, size_t i) {
  return attr_value(l, scale_attrs()[i]);
}

void read_scale(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, scale_attrs());
}

void write_scale(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, scale_attrs(), j);
}

TensorShape scale_shape(const ShapeContext& ctx) {
  check_attrs(ctx.layer, scale_attrs());
  if (ctx.layer.float_params && ctx.layer.float_params->size() != size_t(ctx.in.c)) {
    throw Error(fmt::format("scale layer '{}': {} alpha values for {} channels", ctx.layer.name,
                            ctx.layer.float_params->size(), ctx.in.c));
  }
  return ctx.in;
}

Placement place_scale(const NetworkLayer&) {
  return Placement::kHost;
}

std::string scale_attributes(const NetworkLayer& l) {
  return fmt::format("alpha={} beta={:g} {}",
                     l.float_params ? fmt::format("f32[{}]", l.float_params->size())
                                    : fmt::format("{:g}", attr(l, 0)),
                     attr(l, 1), float_conversions_text(int(attr(l, 2)), int(attr(l, 3))));
}

FloatTensor scale_float(const NetworkLayer& l, const std::vector<const FloatTensor*>& in) {
  return scale(*in[0], attr(l, 0), attr(l, 1),
               l.float_params ? *l.float_params : std::vector<float>{});
}

// On either path (int8 lanes, or the wide lanes of wide_network_run.h).
template <class Ctx>
TensorOf<Ctx> run_scale(const Ctx& ctx, std::string& note) {
  note = fmt::format("{}: scale in f32 on host", ctx.layer.name);
  return in_float(ctx, int(attr(ctx.layer, 2)), int(attr(ctx.layer, 3)),
                  [&](const FloatTensor& x) { return scale_float(ctx.layer, {&x}); });
}

// The host's int8 result for each of the 256 inputs (index q + 128), by the host path itself.
std::vector<int8_t> host_table(const NetworkLayer& l) {
  NetworkTensor all{1, 1, 1, 256, std::vector<int8_t>(256)};
  for (size_t i = 0; i < all.data.size(); ++i) {
    all.data[i] = int8_t(int(i) - 128);
  }
  return run_in_float(all, int(attr(l, 2)), int(attr(l, 3)),
                      [&](const FloatTensor& x) { return scale_float(l, {&x}); })
      .data;
}

// Whether `steps`, clamped to int8, give `table` for every input.
bool exact(const std::vector<AluStep>& steps, const std::vector<int8_t>& table) {
  for (size_t i = 0; i < table.size(); ++i) {
    if (std::clamp(apply_alu_steps(steps, int(i) - 128, 0), -128, 127) != table[i]) {
      return false;
    }
  }
  return true;
}

// round((q * m + c) / 2^s) on the ALU: no MUL for m = 1; one sign shift of the rounding while
// |q * m + c| < 2^15, else two (< 2^23; round_shift_steps).
std::vector<AluStep> form_steps(int m, int c, int s) {
  std::vector<AluStep> steps;
  if (m != 1) {
    steps.push_back({kAluMul, m});
  }
  if (c != 0) {
    steps.push_back({kAluAdd, c});
  }
  const int sign_shifts = 128 * std::abs(m) + std::abs(c) < (1 << 15) ? 1 : 2;
  const std::vector<AluStep> shift = round_shift_steps(s, sign_shifts);
  steps.insert(steps.end(), shift.begin(), shift.end());
  return steps;
}

// The first exact round((q * m + c) / 2^s), fewest shift bits first, with q * m + c near
// y * 2^(out_exp + s) (m one off the nearest too: the host's float rounding may tip a tie).
std::optional<std::vector<AluStep>> integer_form(const NetworkLayer& l) {
  if (l.float_params) {
    return std::nullopt;  // alpha per channel: one immediate cannot hold it
  }
  const double a = attr(l, 0) * std::ldexp(1.0, int(attr(l, 3)) - int(attr(l, 2)));
  const double b = attr(l, 1) * std::ldexp(1.0, int(attr(l, 3)));
  const std::vector<int8_t> table = host_table(l);
  for (int s = 0; s <= 15; ++s) {
    const double m = std::round(a * std::ldexp(1.0, s)), c = std::round(b * std::ldexp(1.0, s));
    if (!(std::fabs(m) < 32767) || !(std::fabs(c) <= 32767)) {
      break;  // more shift bits only make the immediates larger
    }
    for (int dm : {0, -1, 1}) {
      std::vector<AluStep> steps = form_steps(int(m) + dm, int(c), s);
      if (exact(steps, table)) {
        return steps;
      }
    }
  }
  return std::nullopt;
}

AluAddPlan scale_plan(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  const std::optional<std::vector<AluStep>> steps = integer_form(l);
  if (!steps) {
    throw Error(fmt::format("scale layer '{}': ({}) has no exact integer form on the ALU", l.name,
                            scale_attributes(l)));
  }
  return AluAddPlan::make_unary(in.n, in.c, in.h, in.w, *steps, -128, 127, cfg);
}

// One multiply-add per value; the input read and the output written once.
HostWorkCount scale_host_work(const NetworkLayer&, const TensorShape& in) {
  const uint64_t values = uint64_t(in.n) * uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w);
  return {HostWork::kElementwise, values, 2 * values};
}

void make_scale_job(const OpContext& ctx, NetworkLayerJob& job) {
  job.conv.x = ctx.in.data;
}

NetworkTensor scale_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  NetworkTensor in = job.input_shape;
  in.data = job.conv.x;
  return run_in_float(in, int(attr(l, 2)), int(attr(l, 3)),
                      [&](const FloatTensor& x) { return scale_float(l, {&x}); });
}

VtaLayerResult run_scale_job(const Target& target, const Network&, const NetworkLayer& l,
                             const NetworkLayerJob& job, const NetworkOptions& opt) {
  const NetworkTensor& s = job.input_shape;
  const AluAddPlan plan = scale_plan(l, TensorShape{s.n, s.c, s.h, s.w}, target.config);
  std::vector<int8_t> ref;
  if (opt.check) {
    ref = scale_job_reference(l, job).data;
  }
  LayerRun run = run_alu_add(target, l.name, plan, job.conv.x, {}, opt.check ? &ref : nullptr);
  NetworkTensor out{s.n, s.c, s.h, s.w, run.out};
  return {std::move(run), std::move(out)};
}

std::shared_ptr<const RecordingSink> lower_scale(const NetworkLayer& l, const TensorShape& in,
                                                 const HwConfig& cfg) {
  return lower_alu_add(scale_plan(l, in, cfg));
}

uint64_t scale_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return alu_add_cycle_estimate(scale_plan(l, in, cfg), cfg);
}

}  // namespace

const OpDef& scale_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "scale";
    d.json_keys = {"name", "op", "input", "alpha", "beta", "in_exp", "out_exp"};
    d.from_graph_op = GraphOp::kScale;
    d.read_json = read_scale;
    d.write_json = write_scale;
    d.infer_shape = scale_shape;
    d.place = place_scale;
    d.attributes = scale_attributes;
    d.run_host = run_scale<OpContext>;
    d.run_host_wide = run_scale<WideOpContext>;
    d.float_reference = scale_float;
    d.host_work = scale_host_work;
    d.vta.make_job = make_scale_job;
    d.vta.reference = scale_job_reference;
    d.vta.run = run_scale_job;
    d.vta.lower = lower_scale;
    d.vta.estimate_cycles = scale_cycles;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
