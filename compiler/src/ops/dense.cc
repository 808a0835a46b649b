// dense: a fully connected layer (a matmul of the input flattened per sample by the weights,
// inputs x units) with its fused epilogue, on VTA.
#include <fmt/format.h>

#include "ops/op_common.h"
#include "ops/wide_host_ops.h"
#include "vta/compiler/references/reference_cache.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

void read_dense(const nlohmann::json&, const std::string& source, NetworkLayer& l) {
  if (l.units < 1) {
    throw Error(fmt::format("{}: dense layer '{}' needs \"units\" >= 1", source, l.name));
  }
}

void write_dense(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["units"] = l.units;
}

MatmulParams dense_params(const NetworkLayer& l, const TensorShape& in) {
  MatmulParams p;
  p.name = l.name;
  p.m = in.n, p.k = in.c * in.h * in.w, p.n = l.units;
  return p;
}

TensorShape dense_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  const TensorShape& in = ctx.in;
  if (!l.residual.empty()) {
    throw Error(fmt::format("dense layer '{}' cannot take a residual", l.name));
  }
  const uint64_t fan_in = uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w);
  if (fan_in > uint64_t(kMaxTensorDim)) {
    throw Error(fmt::format("dense layer '{}': input of {} values per sample exceeds {}", l.name,
                            fan_in, kMaxTensorDim));
  }
  dense_params(l, in).validate();
  check_weight_sizes(l, fan_in * uint64_t(l.units), uint64_t(l.units));
  return TensorShape{in.n, l.units, 1, 1};
}

Placement place_dense(const NetworkLayer&) {
  return Placement::kVta;
}

std::string dense_attributes(const NetworkLayer& l) {
  return fmt::format("units={}{}{}", l.units, l.weights ? " weights=model" : "",
                     epilogue_attribute(l.epilogue));
}

MatmulParams job_params(const NetworkLayer& l, const NetworkTensor& in) {
  return dense_params(l, TensorShape{in.n, in.c, in.h, in.w});
}

void make_dense_job(const OpContext& ctx, NetworkLayerJob& job) {
  const NetworkLayer& l = ctx.layer;
  if (!l.residual.empty()) {
    throw Error(
        fmt::format("network {}: dense layer '{}' cannot take a residual", ctx.net.name, l.name));
  }
  const MatmulParams p = job_params(l, ctx.in);
  MatmulData d = random_matmul_data(p, l.epilogue, ctx.seed);
  d.a = ctx.in.data;  // NCHW flattened per sample = row of A
  if (l.weights) {
    d.b = *l.weights;
    d.bias = l.bias ? *l.bias : std::vector<int32_t>();
  } else {
    wrap_lanes(d.b, ctx.widths.wgt);
  }
  job.dense = std::move(d);
}

NetworkTensor dense_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  const MatmulParams p = job_params(l, job.input_shape);
  const MatmulData& d = job.dense;
  if (!job.widths.is_int8()) {
    return NetworkTensor{p.m, p.n, 1, 1,
                         matmul_reference_lanes(p, l.epilogue, d.a, d.b, d.bias, job.widths)};
  }
  return NetworkTensor{p.m, p.n, 1, 1,
                       *ReferenceCache::process().matmul(p, l.epilogue, d.a, d.b, d.bias)};
}

VtaLayerResult run_dense_job(const Target& target, const Network& net, const NetworkLayer& l,
                             const NetworkLayerJob& job, const NetworkOptions& opt) {
  if (!l.residual.empty()) {
    throw Error(
        fmt::format("network {}: dense layer '{}' cannot take a residual", net.name, l.name));
  }
  const MatmulParams p = job_params(l, job.input_shape);
  const HwConfig& cfg = target.config;
  const ConvSchedule s =
      l.schedule ? *l.schedule : auto_schedule(matmul_as_conv(p, cfg), l.epilogue, cfg);
  LayerRun run = run_matmul(target, p, l.epilogue, s, job.dense, opt.check);
  NetworkTensor out{p.m, p.n, 1, 1, run.out};
  return {std::move(run), std::move(out)};
}

ConvSchedule dense_auto_schedule(const NetworkLayer& l, const TensorShape& in,
                                 const HwConfig& cfg) {
  return auto_schedule(matmul_as_conv(dense_params(l, in), cfg), l.epilogue, cfg);
}

// A matmul row: the whole sample.
int dense_input_channels(const NetworkLayer&, const TensorShape& in) {
  return in.c * in.h * in.w;
}

Conv2dParams dense_vta_conv(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return matmul_as_conv(dense_params(l, in), cfg);
}

WideLayerJob dense_wide_job(const WideOpContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  const WideNetworkTensor& in = ctx.in;
  WideLayerJob job;
  job.matmul = dense_params(l, TensorShape{in.n, in.c, in.h, in.w});
  job.matmul->validate();
  job.mm.a = in.data;  // NCHW flattened per sample = row of A
  wide_weights(ctx, size_t(job.matmul->k) * job.matmul->n, size_t(job.matmul->n), job.mm.b,
               job.mm.bias);
  job.epilogue = l.epilogue;
  return job;
}

}  // namespace

const OpDef& dense_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "dense";
    d.json_keys = {"name", "op", "input", "units", "epilogue", "schedule"};
    d.has_epilogue = true;
    d.from_graph_op = GraphOp::kGemm;
    d.read_json = read_dense;
    d.write_json = write_dense;
    d.infer_shape = dense_shape;
    d.place = place_dense;
    d.attributes = dense_attributes;
    d.vta = {make_dense_job,      dense_reference,      run_dense_job,
             dense_auto_schedule, dense_input_channels, dense_vta_conv};
    d.make_wide_job = dense_wide_job;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
