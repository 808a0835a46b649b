// min and max: the elementwise minimum or maximum of two int8 tensors of one scale and shape
// (ONNX Min / Max of two activations; the quantizer gives both operands and the output one
// exponent, as for add, so no rescaling is needed and the result is exact), then the layer's
// lower bound and clip_hi. A Min / Max of an activation and a scalar constant has no second
// operand (no "residual"): the constant, quantized at the layer's scale, is its clip_hi (min) or
// lower bound (max), the clamp alone. On VTA's ALU as one vector MIN or MAX and the clamp
// (codegen/alu_elementwise.h) or on the host, whichever the estimates make faster
// (choose_placement).
#include <algorithm>

#include <fmt/format.h>

#include "ops/binary_alu_job.h"
#include "ops/op_common.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

// Both operators share every hook but the ALU opcode and the host's comparison.
template <bool kMax>
struct Extremum {
  static const char* name() { return kMax ? "max" : "min"; }

  static int pick(int a, int b) { return kMax ? std::max(a, b) : std::min(a, b); }

  static TensorShape shape(const ShapeContext& ctx) {
    const NetworkLayer& l = ctx.layer;
    if (l.residual.empty()) {
      return ctx.in;  // the clamp alone
    }
    auto it = ctx.shapes.find(l.residual);
    if (it == ctx.shapes.end()) {
      throw Error(
          fmt::format("{} layer '{}' reads unknown tensor '{}' (its second operand: key "
                      "\"residual\")",
                      name(), l.name, l.residual));
    }
    if (it->second != ctx.in) {
      throw Error(
          fmt::format("{} layer '{}': operand '{}' has shape {}, '{}' has {} (the same "
                      "shape is needed)",
                      name(), l.name, l.input, ctx.in.str(), l.residual, it->second.str()));
    }
    return ctx.in;
  }

  // The clamp: the lower bound (ReLU, clip_lo) and clip_hi within int8.
  static int lo(const NetworkLayer& l) {
    return std::max(-128, l.epilogue.lower_bound().value_or(-128));
  }
  static int hi(const NetworkLayer& l) { return std::min(127, l.epilogue.clip_hi.value_or(127)); }

  static NetworkTensor reference(const NetworkLayer& l, const NetworkTensor& a,
                                 const std::vector<int8_t>& b) {
    NetworkTensor out = a;
    const int low = lo(l), high = hi(l);
    for (size_t i = 0; i < out.data.size(); ++i) {
      const int v = b.empty() ? a.data[i] : pick(a.data[i], b[i]);
      out.data[i] = int8_t(std::clamp(v, low, high));
    }
    return out;
  }

  static NetworkTensor run_host(const OpContext& ctx, std::string& note) {
    note = fmt::format("{}: {} on host", ctx.layer.name, name());
    const NetworkLayer& l = ctx.layer;
    return reference(
        l, ctx.in, l.residual.empty() ? std::vector<int8_t>() : named_tensor(ctx, l.residual).data);
  }

  static void make_job(const OpContext& ctx, NetworkLayerJob& job) {
    if (ctx.layer.residual.empty()) {
      job.conv.x = ctx.in.data;
    } else {
      make_binary_alu_job(ctx, job);
    }
  }

  // One vector MIN / MAX of a's slot with b's, then the clamp; with a constant the clamp alone.
  static AluAddPlan plan(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
    if (l.residual.empty()) {
      return AluAddPlan::make_unary(in.n, in.c, in.h, in.w, {}, lo(l), hi(l), cfg);
    }
    const std::vector<AluStep> steps{{kMax ? kAluMax : kAluMin, 0, true}};
    return AluAddPlan::make_binary(in.n, in.c, in.h, in.w, false, steps, lo(l), hi(l), cfg);
  }

  static NetworkTensor job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
    return binary_alu_job_reference(l, job, reference);
  }

  static VtaLayerResult run_job(const Target& target, const Network&, const NetworkLayer& l,
                                const NetworkLayerJob& job, const NetworkOptions& opt) {
    return run_binary_alu_job(target, l, job, opt, plan, reference);
  }

  static std::shared_ptr<const RecordingSink> lower(const NetworkLayer& l, const TensorShape& in,
                                                    const HwConfig& cfg) {
    return lower_alu_add(plan(l, in, cfg));
  }

  static uint64_t cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
    return alu_add_cycle_estimate(plan(l, in, cfg), cfg);
  }
};

// Without a design to compare on (choose_placement decides with one).
Placement place_extremum(const NetworkLayer&) {
  return Placement::kHost;
}

// One comparison per value; the operands read and the output written once.
HostWorkCount extremum_host_work(const NetworkLayer& l, const TensorShape& in) {
  const uint64_t values = uint64_t(in.n) * uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w);
  return {HostWork::kElementwise, values, (l.residual.empty() ? 2 : 3) * values};
}

std::string extremum_attributes(const NetworkLayer& l) {
  const std::string e = epilogue_attribute(l.epilogue);
  return e.empty() ? e : e.substr(1);  // without the separating space
}

template <bool kMax>
OpDef extremum_def(GraphOp graph_op) {
  using E = Extremum<kMax>;
  OpDef d;
  d.name = E::name();
  d.json_keys = {"name", "op", "input", "residual", "epilogue"};
  d.has_epilogue = true;
  d.from_graph_op = graph_op;
  d.infer_shape = E::shape;
  d.place = place_extremum;
  d.attributes = extremum_attributes;
  d.run_host = E::run_host;
  d.host_work = extremum_host_work;
  d.vta.make_job = E::make_job;
  d.vta.reference = E::job_reference;
  d.vta.run = E::run_job;
  d.vta.lower = E::lower;
  d.vta.estimate_cycles = E::cycles;
  return d;
}

}  // namespace

const OpDef& min_op() {
  static const OpDef def = extremum_def<false>(GraphOp::kMin);
  return def;
}

const OpDef& max_op() {
  static const OpDef def = extremum_def<true>(GraphOp::kMax);
  return def;
}

}  // namespace vta::compiler::ops
