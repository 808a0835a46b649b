// global_avgpool: an average pool whose window is the whole input. On VTA's ALU
// (ops/average_pool_alu.h) when the input's H x W is a power of two and the estimates make it
// faster than the host (choose_placement), else on the host.
#include <fmt/format.h>

#include "ops/average_pool_alu.h"
#include "ops/op_common.h"
#include "ops/wide_host_ops.h"

namespace vta::compiler::ops {

namespace {

void write_global_avgpool(const NetworkLayer& l, nlohmann::ordered_json& j) {
  if (l.rescale) {
    j["rescale"] = l.rescale;
  }
}

TensorShape global_avgpool_shape(const ShapeContext& ctx) {
  return TensorShape{ctx.in.n, ctx.in.c, 1, 1};
}

// Without a design to compare on (choose_placement decides with one).
Placement place_global_avgpool(const NetworkLayer&) {
  return Placement::kHost;
}

std::string global_avgpool_attributes(const NetworkLayer& l) {
  return fmt::format("rescale={}", l.rescale);
}

// The layer as a pool whose window is the whole input.
NetworkLayer whole_window(const NetworkLayer& l, const TensorShape& in) {
  NetworkLayer whole = l;
  whole.kh = in.h, whole.kw = in.w;
  whole.stride_h = whole.stride_w = 1;
  whole.pad_top = whole.pad_left = whole.pad_bottom = whole.pad_right = 0;
  return whole;
}

TensorShape shape_of(const NetworkTensor& t) {
  return TensorShape{t.n, t.c, t.h, t.w};
}

NetworkTensor run_global_avgpool(const OpContext& ctx, std::string& note) {
  NetworkTensor out = average_pool(ctx.in, whole_window(ctx.layer, shape_of(ctx.in)));
  note = fmt::format("{}: global average pool on host", ctx.layer.name);
  return out;
}

HostWorkCount global_avgpool_host_work(const NetworkLayer& l, const TensorShape& in) {
  return window_host_work(whole_window(l, in), in);
}

NetworkTensor global_avgpool_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  return average_pool_job_reference(whole_window(l, shape_of(job.input_shape)), job);
}

VtaLayerResult run_global_avgpool_job(const Target& target, const Network&, const NetworkLayer& l,
                                      const NetworkLayerJob& job, const NetworkOptions& opt) {
  return run_average_pool_job(target, whole_window(l, shape_of(job.input_shape)), job, opt);
}

std::shared_ptr<const RecordingSink> lower_global_avgpool(const NetworkLayer& l,
                                                          const TensorShape& in,
                                                          const HwConfig& cfg) {
  return lower_average_pool(whole_window(l, in), in, cfg);
}

uint64_t global_avgpool_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return average_pool_cycles(whole_window(l, in), in, cfg);
}

WideNetworkTensor run_global_avgpool_wide(const WideOpContext& ctx, std::string& note) {
  const WideNetworkTensor& in = ctx.in;
  note = fmt::format("{}: global average pool on host", ctx.layer.name);
  return wide_average_pool(in, whole_window(ctx.layer, TensorShape{in.n, in.c, in.h, in.w}),
                           ctx.widths.out);
}

}  // namespace

const OpDef& global_avgpool_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "global_avgpool";
    d.json_keys = {"name", "op", "input", "rescale"};
    d.from_graph_op = GraphOp::kGlobalAvgPool;
    d.write_json = write_global_avgpool;
    d.infer_shape = global_avgpool_shape;
    d.place = place_global_avgpool;
    d.attributes = global_avgpool_attributes;
    d.run_host = run_global_avgpool;
    d.run_host_wide = run_global_avgpool_wide;
    d.host_work = global_avgpool_host_work;
    d.vta.make_job = make_average_pool_job;
    d.vta.reference = global_avgpool_job_reference;
    d.vta.run = run_global_avgpool_job;
    d.vta.lower = lower_global_avgpool;
    d.vta.estimate_cycles = global_avgpool_cycles;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
