// Runs a network layer by layer (network.h): host layers through their operator's host
// execution, VTA layers through its lowering (a job: data, then the run or the reference).
#include <map>
#include <random>

#include <fmt/format.h>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/pipeline_split.h"
#include "vta/compiler/run/wide_network_run.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

using Tensor = NetworkTensor;
using Tensors = std::map<std::string, Tensor>;

std::vector<int8_t> random_int8(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) {
    x = int8_t(d(rng));
  }
  return v;
}

// The network's input tensor: its own data, else random from the seed (kept to the input lane).
Tensor network_input(const Network& net, const LayerWidths& widths) {
  const size_t size = size_t(net.n) * net.c * net.h * net.w;
  if (net.input_data && net.input_data->size() != size) {
    throw Error(fmt::format("network {}: input data has {} values for the input {}x{}x{}x{}",
                            net.name, net.input_data->size(), net.n, net.c, net.h, net.w));
  }
  Tensor t{net.n, net.c, net.h, net.w,
           net.input_data ? *net.input_data : random_int8(size, net.seed)};
  if (!net.input_data) {
    wrap_lanes(t.data, widths.inp);
  }
  return t;
}

// A network tensor an earlier layer produced (or the input); throws for a layer that reads an
// unknown tensor or reuses a name.
const Tensor& layer_input(const Network& net, const NetworkLayer& l, const Tensors& tensors) {
  auto it = tensors.find(l.input);
  if (it == tensors.end()) {
    throw Error(
        fmt::format("network {}: layer '{}' reads unknown tensor '{}'", net.name, l.name, l.input));
  }
  if (tensors.count(l.name)) {
    throw Error(fmt::format("network {}: layer name '{}' is used twice", net.name, l.name));
  }
  return it->second;
}

// The weight seed of the layer at `index` (0-based) of the network.
uint64_t layer_seed(const Network& net, size_t index) {
  return net.seed * 1000003u + uint64_t(index + 1);
}

// Where the layer runs on the design `cfg` (null: where its operator's entry says).
bool on_host(const NetworkLayer& l, const Tensor& in, const HwConfig* cfg) {
  return choose_placement(l, TensorShape{in.n, in.c, in.h, in.w}, cfg).place == Placement::kHost;
}

// Runs a host layer and notes it in `host_ops`. Its output saturates to the output lane: every
// host operator's last step is a saturation to int8 (or moves values already in their lanes),
// and saturating to [-2^(b-1), 2^(b-1) - 1] after it is saturating to that range instead.
Tensor run_host_layer(const OpDef& def, const OpContext& ctx, std::vector<std::string>& host_ops) {
  std::string note;
  Tensor out = def.run_host(ctx, note);
  saturate_lanes(out.data, ctx.widths.out);
  host_ops.push_back(std::move(note));
  return out;
}

// A VTA layer's job with its data; its reference output as the tensor it produces.
Tensor prepare_layer_job(const OpDef& def, const OpContext& ctx, NetworkLayerJob& job) {
  job.input_shape = {ctx.in.n, ctx.in.c, ctx.in.h, ctx.in.w, {}};
  job.widths = ctx.widths;
  def.vta.make_job(ctx, job);
  return def.vta.reference(ctx.layer, job);
}

}  // namespace

std::string NetworkTensor::shape() const {
  return fmt::format("{}x{}x{}x{}", n, c, h, w);
}

std::map<std::string, NetworkTensor> reference_network_tensors(const Network& net,
                                                               const LayerWidths& widths) {
  net.validate();
  Tensors tensors;
  tensors[net.input_name] = network_input(net, widths);
  std::vector<std::string> host_ops;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const OpDef& def = op_def(l.op);
    const OpContext ctx{net, l, layer_input(net, l, tensors), tensors, layer_seed(net, i), widths};
    if (on_host(l, ctx.in, nullptr)) {
      tensors[l.name] = run_host_layer(def, ctx, host_ops);
      continue;
    }
    NetworkLayerJob job;
    job.seed = ctx.seed;
    tensors[l.name] = prepare_layer_job(def, ctx, job);
  }
  return tensors;
}

NetworkJobs reference_layer_jobs(const Network& net, const HwConfig* cfg) {
  net.validate();
  const LayerWidths widths = cfg ? LayerWidths::of(*cfg) : LayerWidths{};
  if (needs_wide_network(widths)) {
    throw Error(fmt::format("network {}: networks of {} lanes run in one process (-j 1)", net.name,
                            widths.describe()));
  }
  Tensors tensors;
  tensors[net.input_name] = network_input(net, widths);
  NetworkJobs result;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    try {
      const OpDef& def = op_def(l.op);
      const OpContext ctx{net,   l, layer_input(net, l, tensors), tensors, layer_seed(net, i),
                          widths};
      if (on_host(l, ctx.in, cfg)) {
        tensors[l.name] = run_host_layer(def, ctx, result.host_ops);
        continue;
      }
      NetworkLayerJob job;
      job.layer = i;
      job.seed = ctx.seed;
      tensors[l.name] = prepare_layer_job(def, ctx, job);
      result.jobs.push_back(std::move(job));
    } catch (const Error& ex) {
      // Running the layer would fail the same way: the layers before it still run.
      result.failure = NetworkJobs::Failure{i, ex.what()};
      break;
    }
  }
  return result;
}

LayerRun run_layer_job(const Target& target, const Network& net, const NetworkLayerJob& job,
                       const NetworkOptions& opt) {
  check_network_widths(target.config, net.name);
  const NetworkLayer& l = net.layers.at(job.layer);
  TargetStep step(target, "layers", l.name);
  VtaLayerResult v = op_def(l.op).vta.run(target, net, l, job, opt);
  step.done(v.run.stats);
  return std::move(v.run);
}

std::vector<NetworkCursor> network_sample_cursors(const Network& net, const LayerWidths& widths) {
  net.validate();
  const Tensor in = network_input(net, widths);
  const size_t sample = size_t(in.c) * in.h * in.w;
  std::vector<NetworkCursor> cursors(size_t(in.n));
  for (size_t i = 0; i < cursors.size(); ++i) {
    const auto first = in.data.begin() + std::ptrdiff_t(i * sample);
    cursors[i].tensors[net.input_name] =
        Tensor{1, in.c, in.h, in.w, std::vector<int8_t>(first, first + std::ptrdiff_t(sample))};
  }
  return cursors;
}

void run_host_layers(const Target& target, const Network& net, NetworkCursor& c,
                     std::vector<std::string>& host_ops) {
  const LayerWidths widths = LayerWidths::of(target.config);
  for (; c.next < net.layers.size(); ++c.next) {
    const NetworkLayer& l = net.layers[c.next];
    const OpContext ctx{
        net, l, layer_input(net, l, c.tensors), c.tensors, layer_seed(net, c.next), widths};
    if (!on_host(l, ctx.in, &target.config)) {
      return;
    }
    c.tensors[l.name] = run_host_layer(op_def(l.op), ctx, host_ops);
    if (target.on_host_layer) {
      target.on_host_layer(l.name);
    }
  }
}

namespace {

// Tensor `t` of a batch of 1 as one of a batch of `batch` (the other samples zero).
Tensor as_batch(const Tensor& t, int batch) {
  Tensor b = t;
  b.n = batch;
  b.data.resize(t.data.size() * size_t(batch), 0);
  return b;
}

}  // namespace

NetworkLayerJob next_vta_job(const Network& net, const NetworkCursor& c, const LayerWidths& widths,
                             int batch) {
  const NetworkLayer& l = net.layers.at(c.next);
  const Tensor& in = layer_input(net, l, c.tensors);
  // The weights are drawn for the layer at the network's batch (random_conv_weights skips the
  // input's draws): the job is made at that batch, then given the sample's data.
  Tensors wide;
  wide[l.input] = as_batch(in, batch);
  const auto r = c.tensors.find(l.residual);
  if (!l.residual.empty() && r != c.tensors.end()) {
    wide[l.residual] = as_batch(r->second, batch);
  }
  const OpContext ctx{net, l, wide.at(l.input), wide, layer_seed(net, c.next), widths};
  NetworkLayerJob job;
  job.layer = c.next;
  job.seed = ctx.seed;
  job.input_shape = {in.n, in.c, in.h, in.w, {}};
  job.widths = widths;
  op_def(l.op).vta.make_job(ctx, job);
  job.conv.x = in.data;
  job.dense.a = in.data;
  if (!job.conv.residual.empty()) {
    job.conv.residual = r->second.data;
  }
  return job;
}

NetworkRun run_network(const Target& system, const Network& net, const NetworkOptions& opt) {
  Target target = system;  // the same runtime, with the layers' split
  if (opt.layer_split != LayerSplit::kNone) {
    target.layer_split = opt.layer_split;
  }
  check_network_widths(target.config, net.name);
  const LayerWidths widths = LayerWidths::of(target.config);
  if (needs_wide_network(widths)) {
    return run_network_wide(target, net, opt);
  }
  net.validate();  // also for networks built in code: every shape below is then valid
  if (opt.pipeline) {
    return run_network_pipeline(target, net, opt);
  }
  Tensors tensors;
  tensors[net.input_name] = network_input(net, widths);
  NetworkRun result;
  const std::string& last = net.layers.empty() ? net.input_name : net.layers.back().name;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const OpDef& def = op_def(l.op);
    const OpContext ctx{net, l, layer_input(net, l, tensors), tensors, layer_seed(net, i), widths};
    if (on_host(l, ctx.in, &target.config)) {
      tensors[l.name] = run_host_layer(def, ctx, result.host_ops);
      if (target.on_host_layer) {
        target.on_host_layer(l.name);
      }
      continue;
    }
    TargetStep step(target, "layers", l.name);
    NetworkLayerJob job;
    job.layer = i;
    job.seed = ctx.seed;
    job.input_shape = {ctx.in.n, ctx.in.c, ctx.in.h, ctx.in.w, {}};
    job.widths = widths;
    def.vta.make_job(ctx, job);
    VtaLayerResult v = def.vta.run(target, net, l, job, opt);
    step.done(v.run.stats);
    if (opt.on_layer) {
      opt.on_layer(v.run);
    }
    tensors[l.name] = std::move(v.out);
    result.runs.push_back(std::move(v.run));
  }
  result.output = tensors[last].data;
  return result;
}

}  // namespace vta::compiler
