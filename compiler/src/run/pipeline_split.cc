#include "vta/compiler/run/pipeline_split.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "codegen/runtime_sink.h"
#include "ir/shape_inference.h"
#include "run/core_programs.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/wide_network_run.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/sim/error.h"

namespace vta::compiler {

std::vector<std::pair<int, int>> partition_stages(const std::vector<double>& costs, int stages) {
  const int n = int(costs.size());
  const int groups = std::min(std::max(stages, 1), n);
  if (n == 0) {
    return {};
  }
  std::vector<double> prefix(size_t(n) + 1, 0.0);
  for (int i = 0; i < n; ++i) {
    prefix[size_t(i) + 1] = prefix[size_t(i)] + costs[size_t(i)];
  }
  // best[g][i]: the smallest largest sum of the first i items in g groups.
  constexpr double kNo = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(size_t(groups) + 1,
                                        std::vector<double>(size_t(n) + 1, kNo));
  best[0][0] = 0;
  for (int g = 1; g <= groups; ++g) {
    for (int i = g; i <= n; ++i) {
      for (int m = g - 1; m < i; ++m) {
        const double v =
            std::max(best[size_t(g) - 1][size_t(m)], prefix[size_t(i)] - prefix[size_t(m)]);
        best[size_t(g)][size_t(i)] = std::min(best[size_t(g)][size_t(i)], v);
      }
    }
  }
  // From the last group back, each as short as the optimum allows: the first groups longest.
  std::vector<std::pair<int, int>> r(static_cast<size_t>(groups));
  int end = n;
  for (int g = groups; g >= 1; --g) {
    int m = end - 1;
    while (std::max(best[size_t(g) - 1][size_t(m)], prefix[size_t(end)] - prefix[size_t(m)]) !=
           best[size_t(g)][size_t(end)]) {
      --m;
    }
    r[size_t(g) - 1] = {m, end};
    end = m;
  }
  return r;
}

namespace {

// "1.23M" / "45.6K" / "789".
std::string cycles_text(double c) {
  return c >= 1e6   ? fmt::format("{:.2f}M", c / 1e6)
         : c >= 1e3 ? fmt::format("{:.1f}K", c / 1e3)
                    : fmt::format("{:.0f}", c);
}

// The network with a batch of 1 (each sample of the pipeline); its input comes from the cursors.
Network sample_network(const Network& net) {
  Network one = net;
  one.n = 1;
  one.input_data = nullptr;
  return one;
}

// The convolution a VTA layer runs on one sample, or why the pipeline cannot take the layer.
bool pipeline_conv(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg,
                   Conv2dParams& p, std::string& why_not) {
  const VtaLowering& vta = op_def(l.op).vta;
  if (vta.vta_conv == nullptr || l.groups > 1) {
    why_not =
        fmt::format("layer '{}' ({}) runs on VTA but is not a conv2d or dense layer", l.name, l.op);
    return false;
  }
  p = vta.vta_conv(l, in, cfg);
  return true;
}

// The layer's schedule on one sample: its own if it fits one (a compiled network's layers carry
// schedules for the whole batch), else the automatic one.
ConvSchedule sample_schedule(const NetworkLayer& l, const Conv2dParams& p, const TensorShape& in,
                             const HwConfig& cfg) {
  if (l.schedule) {
    try {
      TilePlan::make(p, l.epilogue, *l.schedule, cfg);
      return *l.schedule;
    } catch (const Error&) {
      // tiles of the batch's layer larger than the sample's
    }
  }
  return op_def(l.op).vta.auto_schedule(l, in, cfg);
}

// Adds the layer's schedule, bytes and estimate on one sample to the plan.
void add_layer_estimate(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg,
                        PipelinePlan& plan) {
  Conv2dParams p;
  if (!pipeline_conv(l, in, cfg, p, plan.why_not)) {
    return;
  }
  const ConvSchedule s = sample_schedule(l, p, in, cfg);
  const TilePlan tp = TilePlan::make(p, l.epilogue, s, cfg);
  const DramTraffic t = estimate_traffic(tp, cfg);
  plan.layer_read.push_back(t.read);
  plan.layer_write.push_back(t.write);
  plan.schedules.push_back(s);
  plan.layer_cycles.push_back(
      std::max(estimate_cycles(tp, cfg), dram_cycles(t.read, t.write, cfg)));
}

// Whether VTA layer j (an index into plan.vta_layers) can follow VTA layer j - 1 in one program:
// no host layer between them, and what it reads of the layers before it in `segment_begin ..
// j` it can load from their output buffers as they are (a dense layer's input or output never).
bool continues_segment(const Network& net, const HwConfig& cfg, const PipelinePlan& plan,
                       int segment_begin, int j) {
  const size_t layer = plan.vta_layers[size_t(j)];
  if (layer != plan.vta_layers[size_t(j) - 1] + 1) {
    return false;
  }
  const NetworkLayer& l = net.layers[layer];
  const bool conv = l.op != "dense";
  for (int i = segment_begin; i < j; ++i) {
    const NetworkLayer& producer = net.layers[plan.vta_layers[size_t(i)]];
    const bool chains = conv && producer.op != "dense";
    if (producer.name == l.input &&
        !(chains && output_loads_as_input(cfg, plan.schedules[size_t(j)]))) {
      return false;
    }
    if (producer.name == l.residual && !(chains && output_loads_as_residual(cfg))) {
      return false;
    }
  }
  return true;
}

// The stages cut where a layer cannot follow the one before in one program.
std::vector<PipelineSegment> plan_segments(const Network& net, const HwConfig& cfg,
                                           const PipelinePlan& plan) {
  std::vector<PipelineSegment> segments;
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const auto [first, last] = plan.stages[k];
    PipelineSegment seg{int(k), first, first + 1};
    for (int j = first + 1; j < last; ++j) {
      if (!continues_segment(net, cfg, plan, seg.first, j)) {
        segments.push_back(seg);
        seg.first = j;
      }
      seg.last = j + 1;
    }
    segments.push_back(seg);
  }
  return segments;
}

// Calls f(g, i) for every segment g that works in step t, on its input i.
template <typename F>
void for_each_active_segment(const PipelinePlan& plan, int t, const F& f) {
  for (int g = 0; g < int(plan.segments.size()); ++g) {
    if (t - g >= 0 && t - g < plan.inputs) {
      f(g, t - g);
    }
  }
}

// The steps' estimate: each lasts as long as its busiest core's segments, or as the DRAM needs
// for the bytes of every layer in it (a step's runs share one DRAM, and no step overlaps the
// next). Sets est_steps (the cores alone), est_dram (the DRAM alone) and est_cycles.
void estimate_steps(PipelinePlan& plan, const HwConfig& cfg) {
  for (int t = 0; t < plan.steps(); ++t) {
    std::vector<double> core(plan.stages.size(), 0.0);
    double read = 0, write = 0;
    for_each_active_segment(plan, t, [&](int g, int) {
      const PipelineSegment& seg = plan.segments[size_t(g)];
      for (int j = seg.first; j < seg.last; ++j) {
        core[size_t(seg.core)] += plan.layer_cycles[size_t(j)];
        read += plan.layer_read[size_t(j)], write += plan.layer_write[size_t(j)];
      }
    });
    const double busiest = *std::max_element(core.begin(), core.end());
    const double dram = dram_cycles(read, write, cfg);
    plan.est_steps += busiest;
    plan.est_dram += dram;
    plan.est_cycles += std::max(busiest, dram);
  }
}

// Why a network cannot run as a pipeline on `cfg`, before looking at its layers.
std::string network_why_not(const Network& net, const HwConfig& cfg) {
  if (cfg.num_cores() < 2) {
    return "the config has one core";
  }
  if (net.n < 2) {
    return fmt::format("a batch of {}; a pipeline streams 2 or more inputs", net.n);
  }
  if (needs_wide_network(LayerWidths::of(cfg))) {
    return "lanes wider than 8 bits run one layer at a time";
  }
  return "";
}

}  // namespace

int PipelinePlan::steps() const {
  return segments.empty() ? 0 : inputs + int(segments.size()) - 1;
}

std::string PipelinePlan::describe(const Network& net) const {
  std::string s;
  for (size_t k = 0; k < stages.size(); ++k) {
    std::string layers;
    double sum = 0;
    for (const PipelineSegment& seg : segments) {
      if (seg.core != int(k)) {
        continue;
      }
      const std::string& a = net.layers[vta_layers[size_t(seg.first)]].name;
      const std::string& b = net.layers[vta_layers[size_t(seg.last) - 1]].name;
      layers += fmt::format("{}{}", layers.empty() ? "" : " | ",
                            seg.last - seg.first == 1 ? a : fmt::format("{}..{}", a, b));
      for (int i = seg.first; i < seg.last; ++i) {
        sum += layer_cycles[size_t(i)];
      }
    }
    s +=
        fmt::format("{}core {}: {} (est {} per input)", k ? ", " : "", k, layers, cycles_text(sum));
  }
  return s;
}

PipelinePlan plan_pipeline(const Network& net, const HwConfig& cfg) {
  PipelinePlan plan;
  plan.inputs = net.n;
  plan.why_not = network_why_not(net, cfg);
  if (!plan.why_not.empty()) {
    return plan;
  }
  const Network one = sample_network(net);
  const std::map<std::string, TensorShape> shapes = infer_network_shapes(one);
  for (size_t i = 0; i < one.layers.size() && plan.why_not.empty(); ++i) {
    const NetworkLayer& l = one.layers[i];
    const TensorShape& in = shapes.at(l.input);
    if (choose_placement(l, in, &cfg).place == Placement::kVta) {
      plan.vta_layers.push_back(i);
      plan.layer_names.push_back(l.name);
      add_layer_estimate(l, in, cfg, plan);
    }
  }
  if (plan.why_not.empty() && plan.vta_layers.size() < 2) {
    plan.why_not = fmt::format("{} VTA layer; a pipeline needs 2 or more", plan.vta_layers.size());
  }
  if (!plan.why_not.empty()) {
    return plan;
  }
  plan.stages = partition_stages(plan.layer_cycles, cfg.num_cores());
  plan.segments = plan_segments(one, cfg, plan);
  estimate_steps(plan, cfg);
  return plan;
}

namespace {

// One input's walk, and the outputs of its convolutions that later layers load, on the device.
struct PipelineInput {
  NetworkCursor cursor;
  std::map<std::string, std::shared_ptr<DeviceBuffer>> on_device;
  std::set<std::string> in_this_step;  // outputs of layers of the step being run: not yet read
};

// The inputs' walk and what the run collects.
struct PipelineState {
  const Target& target;
  const Network& one;  // the network of batch 1
  const PipelinePlan& plan;
  const NetworkOptions& opt;
  ProgramSink& sink;
  std::map<std::string, TensorShape> shapes;  // every tensor's, on one sample
  std::map<std::string, size_t> last_reader;  // the last VTA layer reading each tensor
  std::vector<PipelineInput> inputs;
  NetworkRun result;
  std::vector<std::string> other_host_ops;  // of the inputs after the first (the same layers)
};

// One layer of a step's run: whose input, which VTA layer (index into plan.vta_layers).
struct StepLayer {
  int core = 0;
  int input = 0;
  int vta = 0;
  CoreLayerWork work;
};

// The device buffer holding tensor `name` for a layer that can load it as it is (`loads`), else
// null: the layer uploads the host's copy, which must then exist.
std::shared_ptr<DeviceBuffer> device_tensor(const PipelineState& st, const PipelineInput& in,
                                            const std::string& name, bool loads) {
  const auto it = in.on_device.find(name);
  if (loads && it != in.on_device.end()) {
    return it->second;
  }
  if (in.in_this_step.count(name) != 0) {  // the plan's segments prevent it: a bug
    throw Error(fmt::format("pipeline of network {}: '{}' is read in the step that writes it",
                            st.one.name, name));
  }
  return nullptr;
}

// The work of the VTA layer at the input's cursor; its output's placeholder goes to the cursor
// (the device writes the values in the step's run).
CoreLayerWork layer_work(PipelineState& st, PipelineInput& in, int vta) {
  const HwConfig& cfg = st.target.config;
  NetworkCursor& c = in.cursor;
  const NetworkLayer& l = st.one.layers[c.next];
  const NetworkLayerJob job = next_vta_job(st.one, c, LayerWidths::of(cfg), st.plan.inputs);
  const NetworkTensor& shape = job.input_shape;
  CoreLayerWork w;
  w.e = l.epilogue;
  std::string why_not;
  if (!pipeline_conv(l, TensorShape{shape.n, shape.c, shape.h, shape.w}, cfg, w.conv, why_not)) {
    throw Error(fmt::format("split pipeline: network {}: {}", st.one.name, why_not));
  }
  w.s = st.plan.schedules[size_t(vta)];
  w.matmul = l.op == "dense";  // its convolution is its matmul's
  if (w.matmul) {
    w.mm.name = l.name;
    w.mm.m = shape.n, w.mm.k = shape.c * shape.h * shape.w, w.mm.n = w.conv.k;
    w.mm_data = job.dense;
  } else {
    w.conv_data = job.conv;
  }
  w.input_on_device = device_tensor(st, in, l.input, !w.matmul && output_loads_as_input(cfg, w.s));
  if (l.epilogue.residual) {
    w.residual_on_device =
        device_tensor(st, in, l.residual, !w.matmul && output_loads_as_residual(cfg));
  }
  if (!w.matmul) {  // later layers of this step may load it
    w.output = alloc_conv_output(st.sink, w.conv, cfg);
    in.on_device[l.name] = w.output;
  }
  const TensorShape& out = st.shapes.at(l.name);
  c.tensors[l.name] = NetworkTensor{out.n, out.c, out.h, out.w, {}};
  c.tensors[l.name].data.assign(size_t(out.n) * out.c * out.h * out.w, 0);
  in.in_this_step.insert(l.name);
  ++c.next;
  return w;
}

// The layers of step t: every active segment's, core by core, each on its input.
std::vector<StepLayer> stage_step(PipelineState& st, int t) {
  std::vector<StepLayer> layers;
  for (int k = 0; k < int(st.plan.stages.size()); ++k) {
    for_each_active_segment(st.plan, t, [&](int g, int i) {
      const PipelineSegment& seg = st.plan.segments[size_t(g)];
      if (seg.core != k) {
        return;
      }
      PipelineInput& in = st.inputs[size_t(i)];
      for (int j = seg.first; j < seg.last; ++j) {
        const size_t layer = st.plan.vta_layers[size_t(j)];
        if (in.cursor.next != layer) {  // the walk and the plan disagree: a bug
          throw Error(fmt::format("pipeline of network {}: input {} is not at layer '{}'",
                                  st.one.name, i, st.one.layers[layer].name));
        }
        layers.push_back(StepLayer{k, i, j, layer_work(st, in, j)});
      }
    });
  }
  return layers;
}

// The tensor a core's run produced for its layer.
NetworkTensor layer_output(const CoreLayerWork& w, LayerRun& run) {
  if (w.matmul) {
    return NetworkTensor{w.mm.m, w.mm.n, 1, 1, std::move(run.out)};
  }
  return NetworkTensor{w.conv.n, w.conv.k, w.conv.out_h(), w.conv.out_w(), std::move(run.out)};
}

// A step's layer back into its input's walk: the values it loaded into its work for its check,
// its output over its placeholder and, for a convolution, its output buffer for later layers.
void collect_layer(PipelineState& st, StepLayer& sl, CoreLayerResult& res) {
  PipelineInput& in = st.inputs[size_t(sl.input)];
  NetworkCursor& c = in.cursor;
  const NetworkLayer& l = st.one.layers[st.plan.vta_layers[size_t(sl.vta)]];
  CoreLayerWork& w = sl.work;
  if (!w.matmul) {
    w.conv_data.x = c.tensors.at(l.input).data;
    if (l.epilogue.residual) {
      w.conv_data.residual = c.tensors.at(l.residual).data;
    }
  }
  if (st.opt.check) {
    check_core_layer(st.target, w, res.run);
  }
  c.tensors[l.name] = layer_output(w, res.run);
}

// After a step: host layers where a segment ended, and the device buffers no later VTA layer
// of the input loads freed.
void advance_inputs(PipelineState& st, int t) {
  for_each_active_segment(st.plan, t, [&](int, int i) {
    PipelineInput& in = st.inputs[size_t(i)];
    in.in_this_step.clear();
    run_host_layers(st.target, st.one, in.cursor, i == 0 ? st.result.host_ops : st.other_host_ops);
    for (auto it = in.on_device.begin(); it != in.on_device.end();) {
      const auto r = st.last_reader.find(it->first);
      const bool read_later = r != st.last_reader.end() && r->second >= in.cursor.next;
      it = read_later ? std::next(it) : in.on_device.erase(it);
    }
  });
}

// What each core ran in step t: "core 0: c1 (input 2), c2..down (input 1); core 1: idle".
std::string step_shape(const PipelineState& st, int t) {
  std::vector<std::string> what(st.plan.stages.size());
  for_each_active_segment(st.plan, t, [&](int g, int i) {
    const PipelineSegment& seg = st.plan.segments[size_t(g)];
    const std::string& a = st.plan.layer_names[size_t(seg.first)];
    const std::string& b = st.plan.layer_names[size_t(seg.last) - 1];
    std::string& w = what[size_t(seg.core)];
    w += fmt::format("{}{} (input {})", w.empty() ? "" : ", ",
                     seg.last - seg.first == 1 ? a : fmt::format("{}..{}", a, b), i);
  });
  std::string s;
  for (size_t k = 0; k < what.size(); ++k) {
    s += fmt::format("{}core {}: {}", k ? "; " : "", k, what[k].empty() ? "idle" : what[k]);
  }
  return s;
}

// The step's row: the system's counters, every layer's check, what each core ran. Its compute
// bound is the busiest core's; its memory bound the DRAM time of every layer's bytes.
LayerRun step_run(const PipelineState& st, int t, const std::vector<StepLayer>& layers,
                  const std::vector<LayerRun>& runs, const Stats& system) {
  const HwConfig& cfg = st.target.config;
  LayerRun row;
  row.name = fmt::format("step {}", t);
  row.kind = "pipeline";
  row.backend = st.target.backend;
  row.config = cfg.model_name;
  row.stats = system;
  row.shape = step_shape(st, t);
  row.peak_macs_per_cycle = uint64_t(cfg.batch) * cfg.block_in * cfg.block_out * cfg.num_cores();
  std::vector<uint64_t> compute(st.plan.stages.size(), 0), gemm(st.plan.stages.size(), 0);
  double read = 0, write = 0;
  for (size_t j = 0; j < runs.size(); ++j) {
    const LayerRun& l = runs[j];
    row.macs += l.macs, row.gemm_bound += l.gemm_bound;
    row.kernels += l.kernels, row.kernel_uops += l.kernel_uops;
    compute[size_t(layers[j].core)] += l.bound.compute_cycles;
    gemm[size_t(layers[j].core)] += l.bound.gemm_cycles;
    read += double(l.bound.bytes.dram_read()), write += double(l.bound.bytes.write);
    row.bound.bytes.read += l.bound.bytes.read, row.bound.bytes.write += l.bound.bytes.write;
    row.checked = row.checked || l.checked;
    if (l.mismatches > 0 && row.mismatches == 0) {
      row.first_mismatch = fmt::format("core {} ({}, input {}): {}", layers[j].core, l.name,
                                       layers[j].input, l.first_mismatch);
    }
    row.mismatches += l.mismatches;
  }
  row.bound.compute_cycles = *std::max_element(compute.begin(), compute.end());
  row.bound.gemm_cycles = *std::max_element(gemm.begin(), gemm.end());
  row.bound.memory_cycles = dram_cycles(read, write, cfg);
  row.bound.cycles = std::max(double(row.bound.compute_cycles), row.bound.memory_cycles);
  row.min_bytes = row.bound.bytes.total();
  row.verdict = verdict_of(row.bound, row.stats, cfg);
  row.split = fmt::format("pipeline: step {}", t);
  return row;
}

// Step t: one run of all cores, each its active segments' layers in one program.
void run_step(PipelineState& st, int t) {
  std::vector<StepLayer> layers = stage_step(st, t);
  std::vector<std::vector<const CoreLayerWork*>> programs(st.plan.stages.size());
  for (const StepLayer& sl : layers) {
    programs[size_t(sl.core)].push_back(&sl.work);
  }
  Stats system;
  const auto t0 = std::chrono::steady_clock::now();
  auto results = run_core_programs(st.target, st.sink, programs, system);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<LayerRun> runs;
  size_t j = 0;  // `layers` are in core order, as the results
  for (auto& core : results) {
    for (CoreLayerResult& res : core) {
      collect_layer(st, layers[j++], res);
      runs.push_back(std::move(res.run));
    }
  }
  advance_inputs(st, t);
  st.result.runs.push_back(step_run(st, t, layers, runs, system));
  st.result.runs.back().wall_seconds = wall;
  if (st.opt.on_layer) {
    st.opt.on_layer(st.result.runs.back());
  }
}

// For every tensor a VTA layer reads (input or residual), the last such layer.
std::map<std::string, size_t> last_readers(const Network& one, const PipelinePlan& plan) {
  std::map<std::string, size_t> last;
  for (const size_t i : plan.vta_layers) {
    const NetworkLayer& l = one.layers[i];
    last[l.input] = i;
    if (!l.residual.empty()) {
      last[l.residual] = i;
    }
  }
  return last;
}

}  // namespace

NetworkRun run_network_pipeline(const Target& target, const Network& net,
                                const NetworkOptions& opt) {
  const PipelinePlan plan = plan_pipeline(net, target.config);
  if (!plan.why_not.empty()) {
    throw Error(fmt::format("split pipeline: network {}: {}", net.name, plan.why_not));
  }
  const Network one = sample_network(net);
  RuntimeSink sink(target);  // outlives the tensors left on the device
  PipelineState st{target, one, plan, opt, sink, infer_network_shapes(one), last_readers(one, plan),
                   {},     {},  {}};
  for (NetworkCursor& c : network_sample_cursors(net, LayerWidths::of(target.config))) {
    st.inputs.push_back(PipelineInput{std::move(c), {}, {}});
  }
  for (size_t i = 0; i < st.inputs.size(); ++i) {
    run_host_layers(target, one, st.inputs[i].cursor,
                    i == 0 ? st.result.host_ops : st.other_host_ops);
  }
  for (int t = 0; t < plan.steps(); ++t) {
    run_step(st, t);
  }
  // The outputs of the samples, in order: the batch's (NCHW, the sample outermost).
  const std::string& last = net.layers.back().name;
  for (const PipelineInput& in : st.inputs) {
    const std::vector<int8_t>& out = in.cursor.tensors.at(last).data;
    st.result.output.insert(st.result.output.end(), out.begin(), out.end());
  }
  return std::move(st.result);
}

}  // namespace vta::compiler
