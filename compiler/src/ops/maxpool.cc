// maxpool: the maximum over a window (padding never wins). On VTA's ALU (codegen/alu_pool.h)
// or the host, whichever the estimates make faster (choose_placement).
#include <algorithm>

#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "ops/wide_host_ops.h"
#include "vta/compiler/run/alu_runner.h"

namespace vta::compiler::ops {

namespace {

void write_maxpool(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_window_json(l, j);
}

TensorShape maxpool_shape(const ShapeContext& ctx) {
  return window_shape(ctx.layer, ctx.in);
}

// Without a design to compare on (choose_placement decides with one).
Placement place_maxpool(const NetworkLayer&) {
  return Placement::kHost;
}

NetworkTensor maxpool_reference(const NetworkLayer& l, const NetworkTensor& in) {
  return max_pool_lanes(l, in);
}

NetworkTensor run_maxpool(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: maxpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h);
  return maxpool_reference(l, ctx.in);
}

TensorShape shape_of(const NetworkTensor& t) {
  return TensorShape{t.n, t.c, t.h, t.w};
}

void make_maxpool_job(const OpContext& ctx, NetworkLayerJob& job) {
  job.conv.x = ctx.in.data;
}

NetworkTensor maxpool_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  NetworkTensor in = job.input_shape;
  in.data = job.conv.x;
  return maxpool_reference(l, in);
}

VtaLayerResult run_maxpool_job(const Target& target, const Network&, const NetworkLayer& l,
                               const NetworkLayerJob& job, const NetworkOptions& opt) {
  const PoolWindow p = pool_window(l, shape_of(job.input_shape));
  std::vector<int8_t> ref;
  if (opt.check) {
    ref = maxpool_job_reference(l, job).data;
  }
  LayerRun run = run_alu_pool(target, l.name, p, job.conv.x, opt.check ? &ref : nullptr);
  NetworkTensor out{p.n, p.c, p.oh, p.ow, run.out};
  return {std::move(run), std::move(out)};
}

std::shared_ptr<const RecordingSink> lower_maxpool(const NetworkLayer& l, const TensorShape& in,
                                                   const HwConfig& cfg) {
  return lower_alu_pool(cfg, pool_window(l, in));
}

uint64_t maxpool_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return alu_pool_cycle_estimate(AluPoolPlan::make(pool_window(l, in), cfg), cfg);
}

WideNetworkTensor run_maxpool_wide(const WideOpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: maxpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h);
  return wide_max_pool(l, ctx.in);
}

}  // namespace

const OpDef& maxpool_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "maxpool";
    d.json_keys = {"name", "op", "input", "kernel", "stride", "pad"};
    d.from_graph_op = GraphOp::kMaxPool;
    d.write_json = write_maxpool;
    d.infer_shape = maxpool_shape;
    d.place = place_maxpool;
    d.attributes = window_attributes;
    d.run_host = run_maxpool;
    d.run_host_wide = run_maxpool_wide;
    d.host_work = window_host_work;
    d.vta.make_job = make_maxpool_job;
    d.vta.reference = maxpool_job_reference;
    d.vta.run = run_maxpool_job;
    d.vta.lower = lower_maxpool;
    d.vta.estimate_cycles = maxpool_cycles;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
