// conv2d: a 2D convolution with its fused epilogue (bias, shift, residual add, ReLU / clip). One
// group runs on VTA; a grouped or depthwise one ("groups" > 1) on VTA in sets of groups with
// block-diagonal weights (run/grouped_conv_runner.h) or on the host, each group through the C++
// reference (same arithmetic and epilogue as a VTA layer), whichever the estimates make faster
// (choose_placement).
#include <fmt/format.h>

#include "ops/op_common.h"
#include "ops/wide_host_ops.h"
#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/references/fast_reference.h"
#include "vta/compiler/references/reference_cache.h"
#include "vta/compiler/run/grouped_conv_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

void read_conv2d(const nlohmann::json&, const std::string& source, NetworkLayer& l) {
  if (l.k < 1) {
    throw Error(fmt::format("{}: conv2d layer '{}' needs \"k\" >= 1", source, l.name));
  }
}

void write_conv2d(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["k"] = l.k;
  if (l.groups > 1) {
    j["groups"] = l.groups;
  }
  write_window_json(l, j);
}

// The residual must be an earlier tensor of the output's shape.
void check_residual(const ShapeContext& ctx, const TensorShape& out) {
  const NetworkLayer& l = ctx.layer;
  auto r = ctx.shapes.find(l.residual);
  if (r == ctx.shapes.end()) {
    throw Error(fmt::format("layer '{}' adds unknown residual tensor '{}'", l.name, l.residual));
  }
  if (r->second != out) {
    throw Error(fmt::format("residual '{}' of layer '{}' has shape {} but the layer's output is {}",
                            l.residual, l.name, r->second.str(), out.str()));
  }
}

// Each group a convolution of C/groups channels.
TensorShape conv2d_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  const TensorShape& in = ctx.in;
  if (l.groups < 1 || in.c % l.groups || l.k % l.groups) {
    throw Error(
        fmt::format("conv2d layer '{}': {} groups do not divide {} input and {} output channels",
                    l.name, l.groups, in.c, l.k));
  }
  if (l.groups > 1 && !l.residual.empty()) {
    throw Error(fmt::format("grouped conv2d layer '{}' cannot take a residual", l.name));
  }
  Conv2dParams p = conv_params(l, TensorShape{in.n, in.c / l.groups, in.h, in.w});
  p.k = l.k / l.groups;
  p.validate();
  check_weight_sizes(l, uint64_t(l.k) * uint64_t(p.c) * uint64_t(p.kh) * uint64_t(p.kw),
                     uint64_t(l.k));
  const TensorShape out{p.n, l.k, p.out_h(), p.out_w()};
  if (!l.residual.empty()) {
    check_residual(ctx, out);
  }
  return out;
}

Placement place_conv2d(const NetworkLayer& l) {
  return l.groups == 1 ? Placement::kVta : Placement::kHost;
}

std::string conv2d_attributes(const NetworkLayer& l) {
  return fmt::format("k={}{} {}{}{}", l.k, l.groups > 1 ? fmt::format(" groups={}", l.groups) : "",
                     window_attributes(l), l.weights ? " weights=model" : "",
                     epilogue_attribute(l.epilogue));
}

// The layer's random weights (and bias) or its own, with its actual input and residual.
ConvData conv_data(const OpContext& ctx, const Conv2dParams& p) {
  const NetworkLayer& l = ctx.layer;
  ConvData d;
  if (l.weights) {
    d.w = *l.weights;  // grouped layers: every group's weights, sliced by the host conv
    d.bias = l.bias ? *l.bias : std::vector<int32_t>();
  } else {
    d = random_conv_weights(p, l.epilogue, ctx.seed);
    wrap_lanes(d.w, ctx.widths.wgt);
  }
  d.x = ctx.in.data;
  if (!l.epilogue.residual) {
    return d;
  }
  auto r = ctx.tensors.find(l.residual);
  if (r == ctx.tensors.end()) {
    throw Error(fmt::format("network {}: layer '{}' adds unknown residual tensor '{}'",
                            ctx.net.name, l.name, l.residual));
  }
  const std::string want = fmt::format("{}x{}x{}x{}", p.n, p.k, p.out_h(), p.out_w());
  if (r->second.shape() != want) {
    throw Error(fmt::format(
        "network {}: residual '{}' of layer '{}' has shape {} but the layer's output is {}",
        ctx.net.name, l.residual, l.name, r->second.shape(), want));
  }
  d.residual = r->second.data;
  return d;
}

// One group's slice of the input channels.
std::vector<int8_t> group_input(const NetworkTensor& in, int g, int cg) {
  const size_t plane = size_t(in.h) * in.w;
  std::vector<int8_t> x(size_t(in.n) * size_t(cg) * plane);
  for (int n = 0; n < in.n; ++n) {
    std::copy_n(in.data.begin() + long((size_t(n) * in.c + size_t(g) * cg) * plane),
                size_t(cg) * plane, x.begin() + long(size_t(n) * cg * plane));
  }
  return x;
}

// Each group through the reference at `widths` (conv2d_reference_lanes at other widths than
// int8: a grouped layer computes as VTA would, whichever runs it).
NetworkTensor grouped_conv(const NetworkTensor& in, const NetworkLayer& l, const ConvData& d,
                           const LayerWidths& widths) {
  Conv2dParams p = conv_params(l, TensorShape{in.n, in.c / l.groups, in.h, in.w});
  p.k = l.k / l.groups;
  const int oh = p.out_h(), ow = p.out_w();
  NetworkTensor out{in.n, l.k, oh, ow, std::vector<int8_t>(size_t(in.n) * l.k * oh * ow)};
  const size_t out_plane = size_t(oh) * ow;
  const size_t wper = size_t(p.k) * p.c * p.kh * p.kw;
  for (int g = 0; g < l.groups; ++g) {
    const std::vector<int8_t> x = group_input(in, g, p.c);
    const std::vector<int8_t> w(d.w.begin() + long(g * wper), d.w.begin() + long((g + 1) * wper));
    std::vector<int32_t> bias;
    if (l.epilogue.bias) {
      bias.assign(d.bias.begin() + g * p.k, d.bias.begin() + (g + 1) * p.k);
    }
    const Epilogue e = l.epilogue.channels(size_t(g) * size_t(p.k), size_t(p.k));
    const std::vector<int8_t> y = widths.is_int8()
                                      ? conv2d_reference_fast(p, e, x, w, bias, {})
                                      : conv2d_reference_lanes(p, e, x, w, bias, {}, widths);
    for (int n = 0; n < in.n; ++n) {
      std::copy_n(y.begin() + long(size_t(n) * p.k * out_plane), size_t(p.k) * out_plane,
                  out.data.begin() + long((size_t(n) * l.k + size_t(g) * p.k) * out_plane));
    }
  }
  return out;
}

// A grouped layer's data: its own weights, or random ones of every group ([K][C/groups][KH][KW]).
ConvData grouped_data(const OpContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  Conv2dParams p = conv_params(l, TensorShape{ctx.in.n, ctx.in.c / l.groups, ctx.in.h, ctx.in.w});
  ConvData d = conv_data(ctx, p);
  if (!l.weights) {
    p.k = l.k;  // every group's weights and bias
    const ConvData r = random_conv_weights(p, l.epilogue, ctx.seed);
    d.w = r.w;
    wrap_lanes(d.w, ctx.widths.wgt);
    d.bias = r.bias;
  }
  return d;
}

NetworkTensor run_grouped_conv2d(const OpContext& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  const NetworkTensor& in = ctx.in;
  Conv2dParams p = conv_params(l, TensorShape{in.n, in.c / l.groups, in.h, in.w});
  p.k = l.k / l.groups;
  NetworkTensor out = grouped_conv(in, l, grouped_data(ctx), ctx.widths);
  note = fmt::format("{}: conv2d {}x{} s{} with {} groups on host ({} MACs)", l.name, l.kh, l.kw,
                     l.stride_h, l.groups, p.macs() * uint64_t(l.groups));
  return out;
}

Conv2dParams job_params(const NetworkLayer& l, const NetworkTensor& in) {
  Conv2dParams p = conv_params(l, TensorShape{in.n, in.c, in.h, in.w});
  p.validate();
  return p;
}

void make_conv2d_job(const OpContext& ctx, NetworkLayerJob& job) {
  job.conv =
      ctx.layer.groups > 1 ? grouped_data(ctx) : conv_data(ctx, job_params(ctx.layer, ctx.in));
}

GroupedConvSplit grouped_split(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return GroupedConvSplit::make(conv_params(l, in), l.groups, cfg);
}

NetworkTensor conv2d_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  if (l.groups > 1) {
    NetworkTensor in = job.input_shape;
    in.data = job.conv.x;
    return grouped_conv(in, l, job.conv, job.widths);
  }
  const Conv2dParams p = job_params(l, job.input_shape);
  const ConvData& d = job.conv;
  if (!job.widths.is_int8()) {
    return NetworkTensor{
        p.n, p.k, p.out_h(), p.out_w(),
        conv2d_reference_lanes(p, l.epilogue, d.x, d.w, d.bias, d.residual, job.widths)};
  }
  return NetworkTensor{
      p.n, p.k, p.out_h(), p.out_w(),
      *ReferenceCache::process().conv2d(p, l.epilogue, d.x, d.w, d.bias, d.residual)};
}

// The layer's own schedule, else a tuned (opt.tune_candidates) or the automatic one.
ConvSchedule conv2d_schedule(const Target& target, const NetworkLayer& l, const Conv2dParams& p,
                             const ConvData& d, const NetworkOptions& opt) {
  if (l.schedule) {
    return *l.schedule;
  }
  if (opt.tune_candidates) {
    const TuneResult t = tune_conv2d(target, p, l.epilogue, d, opt.tune_candidates, false);
    return t.trials[t.best].schedule;
  }
  return auto_schedule(p, l.epilogue, target.config);
}

// A grouped layer on VTA: its sets with the layer's schedule or the set's automatic one.
VtaLayerResult run_grouped_job(const Target& target, const NetworkLayer& l,
                               const NetworkLayerJob& job, const NetworkOptions& opt) {
  const NetworkTensor& in = job.input_shape;
  const GroupedConvSplit g = grouped_split(l, TensorShape{in.n, in.c, in.h, in.w}, target.config);
  const ConvSchedule s = l.schedule ? *l.schedule : auto_schedule(g.set, l.epilogue, target.config);
  std::vector<int8_t> ref;
  if (opt.check) {
    NetworkTensor x = in;
    x.data = job.conv.x;
    ref = grouped_conv(x, l, job.conv, job.widths).data;
  }
  LayerRun run =
      run_conv2d_in_group_sets(target, g, l.epilogue, s, job.conv, opt.check ? &ref : nullptr);
  NetworkTensor out{in.n, l.k, g.whole.out_h(), g.whole.out_w(), run.out};
  return {std::move(run), std::move(out)};
}

VtaLayerResult run_conv2d_job(const Target& target, const Network&, const NetworkLayer& l,
                              const NetworkLayerJob& job, const NetworkOptions& opt) {
  if (l.groups > 1) {
    return run_grouped_job(target, l, job, opt);
  }
  const Conv2dParams p = job_params(l, job.input_shape);
  const ConvSchedule s = conv2d_schedule(target, l, p, job.conv, opt);
  LayerRun run = run_conv2d(target, p, l.epilogue, s, job.conv, opt.check);
  NetworkTensor out{p.n, p.k, p.out_h(), p.out_w(), run.out};
  return {std::move(run), std::move(out)};
}

// A grouped layer's: that of one set.
ConvSchedule conv2d_auto_schedule(const NetworkLayer& l, const TensorShape& in,
                                  const HwConfig& cfg) {
  if (l.groups > 1) {
    return auto_schedule(grouped_split(l, in, cfg).set, l.epilogue, cfg);
  }
  return auto_schedule(conv_params(l, in), l.epilogue, cfg);
}

// A grouped layer's int8 MACs; its input, output and weights read or written once.
HostWorkCount conv2d_host_work(const NetworkLayer& l, const TensorShape& in) {
  Conv2dParams p = conv_params(l, TensorShape{in.n, in.c / l.groups, in.h, in.w});
  p.k = l.k / l.groups;
  const uint64_t macs = p.macs() * uint64_t(l.groups);
  const uint64_t bytes =
      uint64_t(in.n) * uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w) +
      uint64_t(in.n) * uint64_t(l.k) * uint64_t(p.out_h()) * uint64_t(p.out_w()) +
      uint64_t(l.k) * uint64_t(p.c) * uint64_t(l.kh) * uint64_t(l.kw);
  return {HostWork::kInt8Mac, macs, bytes};
}

uint64_t conv2d_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return grouped_conv_cycle_estimate(grouped_split(l, in, cfg), l.epilogue, cfg);
}

// A kernel fold's layer has C * fold_rows * KW channels (kernel_fold.h).
int conv2d_input_channels(const NetworkLayer& l, const TensorShape& in) {
  const int fold = l.schedule ? l.schedule->fold_rows : 0;
  return fold >= 1 ? folded_params(conv_params(l, in), fold).c : in.c;
}

// A grouped layer's: one set (the run repeats it for every set).
Conv2dParams conv2d_vta_conv(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  if (l.groups > 1) {
    return grouped_split(l, in, cfg).set;
  }
  Conv2dParams p = conv_params(l, in);
  p.validate();
  return p;
}

// One group on VTA at wide lanes (grouped layers do not run there yet).
WideLayerJob conv2d_wide_job(const WideOpContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  const WideNetworkTensor& in = ctx.in;
  WideLayerJob job;
  job.conv = conv_params(l, TensorShape{in.n, in.c, in.h, in.w});
  job.conv.validate();
  const Conv2dParams& p = job.conv;
  job.data.x = in.data;
  wide_weights(ctx, size_t(p.k) * p.c * p.kh * p.kw, size_t(p.k), job.data.w, job.data.bias);
  set_wide_epilogue(l, ctx.widths, job);
  return job;
}

}  // namespace

const OpDef& conv2d_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "conv2d";
    d.json_keys = {"name", "op",       "input",    "k",        "kernel", "stride",
                   "pad",  "residual", "epilogue", "schedule", "groups"};
    d.has_epilogue = true;
    d.from_graph_op = GraphOp::kConv;
    d.read_json = read_conv2d;
    d.write_json = write_conv2d;
    d.infer_shape = conv2d_shape;
    d.place = place_conv2d;
    d.attributes = conv2d_attributes;
    d.run_host = run_grouped_conv2d;
    d.host_work = conv2d_host_work;
    d.vta = {make_conv2d_job,      conv2d_reference,      run_conv2d_job,
             conv2d_auto_schedule, conv2d_input_channels, conv2d_vta_conv};
    d.vta.estimate_cycles = conv2d_cycles;
    d.make_wide_job = conv2d_wide_job;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
