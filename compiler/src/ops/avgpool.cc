// avgpool: the mean over a window (of its real pixels, or of the whole window with
// count_include_pad) times 2^rescale, rounded to nearest, saturated to int8. On VTA's ALU
// (ops/average_pool_alu.h) when every window shares one power-of-two divisor and the estimates
// make it faster than the host (choose_placement), else on the host.
#include <fmt/format.h>

#include "ops/average_pool_alu.h"
#include "ops/op_common.h"
#include "ops/wide_host_ops.h"

namespace vta::compiler::ops {

namespace {

void write_avgpool(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["count_include_pad"] = l.count_include_pad;
  if (l.rescale) {
    j["rescale"] = l.rescale;
  }
  write_window_json(l, j);
}

TensorShape avgpool_shape(const ShapeContext& ctx) {
  return window_shape(ctx.layer, ctx.in);
}

// Without a design to compare on (choose_placement decides with one).
Placement place_avgpool(const NetworkLayer&) {
  return Placement::kHost;
}

std::string avgpool_attributes(const NetworkLayer& l) {
  return fmt::format("{} count_include_pad={} rescale={}", window_attributes(l),
                     l.count_include_pad, l.rescale);
}

NetworkTensor run_avgpool(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: avgpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h);
  return average_pool(ctx.in, l);
}

VtaLayerResult run_avgpool_job(const Target& target, const Network&, const NetworkLayer& l,
                               const NetworkLayerJob& job, const NetworkOptions& opt) {
  return run_average_pool_job(target, l, job, opt);
}

WideNetworkTensor run_avgpool_wide(const WideOpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  note = fmt::format("{}: avgpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h);
  return wide_average_pool(ctx.in, l, ctx.widths.out);
}

}  // namespace

const OpDef& avgpool_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "avgpool";
    d.json_keys = {"name",   "op", "input", "kernel", "stride", "pad", "count_include_pad",
                   "rescale"};
    d.from_graph_op = GraphOp::kAvgPool;
    d.write_json = write_avgpool;
    d.infer_shape = avgpool_shape;
    d.place = place_avgpool;
    d.attributes = avgpool_attributes;
    d.run_host = run_avgpool;
    d.run_host_wide = run_avgpool_wide;
    d.host_work = window_host_work;
    d.vta.make_job = make_average_pool_job;
    d.vta.reference = average_pool_job_reference;
    d.vta.run = run_avgpool_job;
    d.vta.lower = lower_average_pool;
    d.vta.estimate_cycles = average_pool_cycles;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
