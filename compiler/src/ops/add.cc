// add: a + b of two int8 tensors of one scale and shape, then the layer's lower bound and
// clip_hi, saturated to int8. On VTA's ALU (codegen/alu_elementwise.h) or the host, whichever
// the estimates make faster (choose_placement).
#include <algorithm>

#include <fmt/format.h>

#include "ops/binary_alu_job.h"
#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "ops/wide_host_ops.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

TensorShape add_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  auto it = ctx.shapes.find(l.residual);
  if (it == ctx.shapes.end()) {
    throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, l.residual));
  }
  if (it->second != ctx.in) {
    throw Error(fmt::format("{} layer '{}': operand '{}' has shape {}, '{}' has {}", l.op, l.name,
                            l.input, ctx.in.str(), l.residual, it->second.str()));
  }
  return ctx.in;
}

// Without a design to compare on (choose_placement decides with one).
Placement place_add(const NetworkLayer&) {
  return Placement::kHost;
}

// The clamp: the lower bound (ReLU, clip_lo) and clip_hi within int8.
int add_lo(const NetworkLayer& l) {
  return std::max(-128, l.epilogue.lower_bound().value_or(-128));
}
int add_hi(const NetworkLayer& l) {
  return std::min(127, l.epilogue.clip_hi.value_or(127));
}

// One operation per value; both operands read and the output written once.
HostWorkCount add_host_work(const NetworkLayer&, const TensorShape& in) {
  const uint64_t values = uint64_t(in.n) * uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w);
  return {HostWork::kElementwise, values, 3 * values};
}

NetworkTensor add_reference(const NetworkLayer& l, const NetworkTensor& a,
                            const std::vector<int8_t>& b) {
  return add_lanes(a, b, add_lo(l), add_hi(l));
}

std::string add_attributes(const NetworkLayer& l) {
  const std::string e = epilogue_attribute(l.epilogue);
  return e.empty() ? e : e.substr(1);  // without the separating space
}

NetworkTensor run_add(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: add on host", l.name);
  return add_reference(l, ctx.in, named_tensor(ctx, l.residual).data);
}

AluAddPlan add_plan(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return AluAddPlan::make(in.n, in.c, in.h, in.w, add_lo(l), add_hi(l), cfg);
}

// The job's input is a, its residual b.
NetworkTensor add_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  return binary_alu_job_reference(l, job, add_reference);
}

VtaLayerResult run_add_job(const Target& target, const Network&, const NetworkLayer& l,
                           const NetworkLayerJob& job, const NetworkOptions& opt) {
  return run_binary_alu_job(target, l, job, opt, add_plan, add_reference);
}

std::shared_ptr<const RecordingSink> lower_add(const NetworkLayer& l, const TensorShape& in,
                                               const HwConfig& cfg) {
  return lower_alu_add(add_plan(l, in, cfg));
}

uint64_t add_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return alu_add_cycle_estimate(add_plan(l, in, cfg), cfg);
}

WideNetworkTensor run_add_wide(const WideOpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: add on host", l.name);
  auto b = ctx.tensors.find(l.residual);
  if (b == ctx.tensors.end()) {
    throw Error(fmt::format("network {}: layer '{}' reads unknown tensor '{}'", ctx.net.name,
                            l.name, l.residual));
  }
  return wide_add(l, ctx.in, b->second, ctx.widths.out);
}

}  // namespace

const OpDef& add_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "add";
    d.json_keys = {"name", "op", "input", "residual", "epilogue"};
    d.has_epilogue = true;
    d.from_graph_op = GraphOp::kAdd;
    d.infer_shape = add_shape;
    d.place = place_add;
    d.attributes = add_attributes;
    d.run_host = run_add;
    d.run_host_wide = run_add_wide;
    d.host_work = add_host_work;
    d.vta.make_job = make_binary_alu_job;
    d.vta.reference = add_job_reference;
    d.vta.run = run_add_job;
    d.vta.lower = lower_add;
    d.vta.estimate_cycles = add_cycles;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
