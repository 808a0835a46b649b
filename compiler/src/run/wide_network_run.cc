// Runs a network of wide lanes (wide_network_run.h) layer by layer: host layers through their
// operator's run_host_wide, VTA layers through its make_wide_job and the wide runners.
#include "vta/compiler/run/wide_network_run.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <random>

#include <fmt/format.h>

#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/references/width_reference.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// A VTA layer's output: from the target or from the width reference.
using VtaStep = std::function<WideNetworkTensor(const NetworkLayer&, const WideLayerJob&)>;

// The network's own input data (int16 or int8 values) copied into `t`; false without any.
template <class T>
bool copy_input(const Network& net, const std::shared_ptr<const std::vector<T>>& data,
                WideNetworkTensor& t) {
  if (!data) {
    return false;
  }
  if (data->size() != t.data.size()) {
    throw Error(fmt::format("network {}: input data has {} values for the input {}x{}x{}x{}",
                            net.name, data->size(), net.n, net.c, net.h, net.w));
  }
  std::copy(data->begin(), data->end(), t.data.begin());
  return true;
}

// The network's input: its own int16 data (a quantized model's) or int8 data (values of every
// lane of 8 bits and up), else uniform over the input lane from the seed.
WideNetworkTensor wide_input(const Network& net, const LayerWidths& widths) {
  const size_t size = size_t(net.n) * net.c * net.h * net.w;
  WideNetworkTensor t{net.n, net.c, net.h, net.w, std::vector<int32_t>(size)};
  if (copy_input(net, net.input_i16, t) || copy_input(net, net.input_data, t)) {
    return t;
  }
  std::mt19937_64 rng(net.seed);
  for (auto& x : t.data) {
    x = sign_extend(int64_t(rng()), widths.inp);
  }
  return t;
}

const WideNetworkTensor& wide_tensor(const Network& net, const NetworkLayer& l,
                                     const std::string& name, const WideTensors& tensors) {
  auto it = tensors.find(name);
  if (it == tensors.end()) {
    throw Error(
        fmt::format("network {}: layer '{}' reads unknown tensor '{}'", net.name, l.name, name));
  }
  return it->second;
}

// A quantized model's bounds of a host layer's output (the fan-in rule of its consumers:
// quantize.h), where the layer has them.
void clip_to_epilogue(WideNetworkTensor& out, const Epilogue& e) {
  if (!e.clip_lo && !e.clip_hi) {
    return;
  }
  const int32_t lo = e.clip_lo.value_or(INT32_MIN), hi = e.clip_hi.value_or(INT32_MAX);
  for (auto& x : out.data) {
    x = std::clamp(x, lo, hi);
  }
}

// The host's residual add after a VTA layer: the residual (rounded down by residual_shift as
// VTA's ALU ADD 2^(r-1), SHR r would), the layer's bounds, saturated to the output lane.
void add_residual(WideNetworkTensor& out, const WideNetworkTensor& r, const WideLayerJob& job,
                  int out_bits) {
  const int s = job.residual_shift;
  for (size_t i = 0; i < out.data.size(); ++i) {
    const int64_t res = s ? (int64_t(r.data[i]) + (int64_t(1) << (s - 1))) >> s : r.data[i];
    const int64_t v = std::clamp<int64_t>(out.data[i] + res, job.lo, job.hi);
    out.data[i] = int32_t(std::clamp<int64_t>(v, lane_min(out_bits), lane_max(out_bits)));
  }
}

// The layer's output as `vta` gives it, with its residual added on the host.
WideNetworkTensor wide_vta_layer(const OpDef& def, const WideOpContext& ctx, const VtaStep& vta,
                                 std::vector<std::string>& host_ops) {
  const WideLayerJob job = def.make_wide_job(ctx);
  WideNetworkTensor out = vta(ctx.layer, job);
  if (!job.residual.empty()) {
    const WideNetworkTensor& r = wide_tensor(ctx.net, ctx.layer, job.residual, ctx.tensors);
    if (r.data.size() != out.data.size()) {
      throw Error(fmt::format("network {}: residual '{}' of layer '{}' does not match its output",
                              ctx.net.name, job.residual, ctx.layer.name));
    }
    add_residual(out, r, job, ctx.widths.out);
    host_ops.push_back(
        fmt::format("{}: residual add of '{}' on host", ctx.layer.name, job.residual));
  }
  return out;
}

// Follows the network: host layers here, VTA layers through `vta`; every tensor into `tensors`.
// `target` (if any) hears of every host layer.
void follow_wide(const Network& net, const LayerWidths& widths, const VtaStep& vta,
                 const Target* target, WideTensors& tensors, std::vector<std::string>& host_ops) {
  tensors[net.input_name] = wide_input(net, widths);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const OpDef& def = op_def(l.op);
    if (tensors.count(l.name)) {
      throw Error(fmt::format("network {}: layer name '{}' is used twice", net.name, l.name));
    }
    const uint64_t seed = net.seed * 1000003u + uint64_t(i + 1);  // as run_network's
    const WideOpContext ctx{net, l, wide_tensor(net, l, l.input, tensors), tensors, seed, widths};
    const bool vta_layer = def.make_wide_job && l.on_vta();
    if (!vta_layer && !def.run_host_wide) {
      throw Error(fmt::format(
          "network {}: layer '{}' ({}{}) does not run at {} lanes yet (networks of lanes wider "
          "than 8 bits: {})",
          net.name, l.name, l.op, l.groups > 1 ? ", grouped" : "", widths.describe(),
          wide_operator_names()));
    }
    if (vta_layer) {
      tensors[l.name] = wide_vta_layer(def, ctx, vta, host_ops);
      continue;
    }
    std::string note;
    WideNetworkTensor out = def.run_host_wide(ctx, note);
    saturate_wide_lanes(out.data, widths.out);
    clip_to_epilogue(out, l.epilogue);
    host_ops.push_back(std::move(note));
    tensors[l.name] = std::move(out);
    if (target && target->on_host_layer) {
      target->on_host_layer(l.name);
    }
  }
}

// A layer's output tensor shape around its lanes.
WideNetworkTensor shaped(const WideLayerJob& job, std::vector<int32_t> lanes) {
  if (job.matmul) {
    return WideNetworkTensor{job.matmul->m, job.matmul->n, 1, 1, std::move(lanes)};
  }
  const Conv2dParams& p = job.conv;
  return WideNetworkTensor{p.n, p.k, p.out_h(), p.out_w(), std::move(lanes)};
}

WideNetworkTensor reference_output(const WideLayerJob& job, const LayerWidths& widths) {
  const Epilogue e = epilogue_at_widths(job.epilogue, widths);
  if (job.matmul) {
    return shaped(job, matmul_reference_at(*job.matmul, e, job.mm.a, job.mm.b, job.mm.bias,
                                           widths.accumulator()));
  }
  return shaped(job, conv2d_reference_at(job.conv, e, job.data.x, job.data.w, job.data.bias, {},
                                         widths.accumulator()));
}

// The layer's own schedule, else the automatic one.
WideLayerRun run_wide_job(const Target& target, const NetworkLayer& l, const WideLayerJob& job,
                          bool check) {
  const HwConfig& cfg = target.config;
  if (job.matmul) {
    const ConvSchedule s = l.schedule
                               ? *l.schedule
                               : auto_schedule(matmul_as_conv(*job.matmul, cfg), job.epilogue, cfg);
    return run_matmul_wide(target, *job.matmul, job.epilogue, s, job.mm, check);
  }
  const ConvSchedule s = l.schedule ? *l.schedule : auto_schedule(job.conv, job.epilogue, cfg);
  return run_conv2d_wide(target, job.conv, job.epilogue, s, job.data, check);
}

}  // namespace

bool needs_wide_network(const LayerWidths& w) {
  return w.inp > 8 || w.wgt > 8;
}

std::string wide_operator_names() {
  std::string s;
  for (const OpDef* d : op_defs()) {
    if (d->make_wide_job || d->run_host_wide) {
      s += (s.empty() ? "" : ", ") + d->name + (d->make_wide_job ? " (one group)" : "");
    }
  }
  return s;
}

void saturate_wide_lanes(std::vector<int32_t>& v, int bits) {
  if (bits >= 32) {
    return;
  }
  for (auto& x : v) {
    x = std::clamp(x, lane_min(bits), lane_max(bits));
  }
}

WideTensors reference_network_tensors_wide(const Network& net, const LayerWidths& widths) {
  net.validate();
  WideTensors tensors;
  std::vector<std::string> host_ops;
  follow_wide(
      net, widths,
      [&](const NetworkLayer&, const WideLayerJob& job) { return reference_output(job, widths); },
      nullptr, tensors, host_ops);
  return tensors;
}

NetworkRun run_network_wide(const Target& target, const Network& net, const NetworkOptions& opt) {
  check_network_widths(target.config, net.name);
  net.validate();
  const LayerWidths widths = LayerWidths::of(target.config);
  NetworkRun result;
  WideTensors tensors;
  const VtaStep vta = [&](const NetworkLayer& l, const WideLayerJob& job) {
    TargetStep step(target, "layers", l.name);
    WideLayerRun w = run_wide_job(target, l, job, opt.check);
    w.run.name = l.name;
    step.done(w.run.stats);
    if (opt.on_layer) {
      opt.on_layer(w.run);
    }
    result.runs.push_back(std::move(w.run));
    return shaped(job, std::move(w.out));
  };
  follow_wide(net, widths, vta, &target, tensors, result.host_ops);
  const std::string& last = net.layers.empty() ? net.input_name : net.layers.back().name;
  result.wide_output = tensors[last].data;
  return result;
}

}  // namespace vta::compiler
