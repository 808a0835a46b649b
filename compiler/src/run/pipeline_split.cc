#include "vta/compiler/run/pipeline_split.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "ir/shape_inference.h"
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

// Adds the layer's estimate on one sample to the plan; `traffic` gets its DRAM bytes.
void add_layer_estimate(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg,
                        PipelinePlan& plan, DramTraffic& traffic) {
  Conv2dParams p;
  if (!pipeline_conv(l, in, cfg, p, plan.why_not)) {
    return;
  }
  const ConvSchedule s = sample_schedule(l, p, in, cfg);
  const TilePlan tp = TilePlan::make(p, l.epilogue, s, cfg);
  const DramTraffic t = estimate_traffic(tp, cfg);
  traffic.read += t.read, traffic.write += t.write;
  plan.layer_cycles.push_back(
      std::max(estimate_cycles(tp, cfg), dram_cycles(t.read, t.write, cfg)));
}

// Calls f(t, r, slowest) for every sub-step r of every step t with a layer on some core, slowest
// the largest estimate of its layers.
template <typename F>
void for_each_substep(const PipelinePlan& plan, const F& f) {
  const int stages = int(plan.stages.size());
  for (int t = 0; t < plan.inputs + stages - 1; ++t) {
    for (int r = 0; r < plan.longest(); ++r) {
      double slowest = -1;
      for (int k = 0; k < stages; ++k) {
        const auto [first, last] = plan.stages[size_t(k)];
        if (t - k >= 0 && t - k < plan.inputs && first + r < last) {
          slowest = std::max(slowest, plan.layer_cycles[size_t(first) + size_t(r)]);
        }
      }
      if (slowest >= 0) {
        f(t, r, slowest);
      }
    }
  }
}

// The cycles of the steps: every sub-step lasts as long as its slowest layer.
double steps_estimate(const PipelinePlan& plan) {
  double sum = 0;
  for_each_substep(plan, [&](int, int, double slowest) { sum += slowest; });
  return sum;
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

int PipelinePlan::longest() const {
  int most = 0;
  for (const auto& [first, last] : stages) {
    most = std::max(most, last - first);
  }
  return most;
}

int PipelinePlan::substeps() const {
  int n = 0;
  for_each_substep(*this, [&](int, int, double) { ++n; });
  return n;
}

std::string PipelinePlan::describe(const Network& net) const {
  std::string s;
  for (size_t k = 0; k < stages.size(); ++k) {
    const auto [first, last] = stages[k];
    double sum = 0;
    for (int i = first; i < last; ++i) {
      sum += layer_cycles[size_t(i)];
    }
    const std::string& a = net.layers[vta_layers[size_t(first)]].name;
    const std::string& b = net.layers[vta_layers[size_t(last) - 1]].name;
    const std::string layers = last - first == 1 ? a : fmt::format("{}..{}", a, b);
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
  DramTraffic traffic;
  for (size_t i = 0; i < one.layers.size() && plan.why_not.empty(); ++i) {
    const NetworkLayer& l = one.layers[i];
    const TensorShape& in = shapes.at(l.input);
    if (choose_placement(l, in, &cfg).place == Placement::kVta) {
      plan.vta_layers.push_back(i);
      plan.layer_names.push_back(l.name);
      add_layer_estimate(l, in, cfg, plan, traffic);
    }
  }
  if (plan.why_not.empty() && plan.vta_layers.size() < 2) {
    plan.why_not = fmt::format("{} VTA layer; a pipeline needs 2 or more", plan.vta_layers.size());
  }
  if (!plan.why_not.empty()) {
    return plan;
  }
  plan.stages = partition_stages(plan.layer_cycles, cfg.num_cores());
  plan.est_steps = steps_estimate(plan);
  plan.est_dram = dram_cycles(traffic.read * net.n, traffic.write * net.n, cfg);
  plan.est_cycles = std::max(plan.est_steps, plan.est_dram);
  return plan;
}

namespace {

// The inputs' walk and what the run collects.
struct PipelineState {
  const Target& target;
  const Network& one;  // the network of batch 1
  const PipelinePlan& plan;
  const NetworkOptions& opt;
  std::vector<NetworkCursor> inputs;
  NetworkRun result;
  std::vector<std::string> other_host_ops;  // of the inputs after the first (the same layers)
};

// The work of the VTA layer at the cursor for its core.
CoreLayerWork layer_work(const PipelineState& st, const NetworkCursor& c) {
  const HwConfig& cfg = st.target.config;
  const NetworkLayer& l = st.one.layers[c.next];
  const NetworkLayerJob job = next_vta_job(st.one, c, LayerWidths::of(cfg), st.plan.inputs);
  const NetworkTensor& in = job.input_shape;
  const TensorShape shape{in.n, in.c, in.h, in.w};
  CoreLayerWork w;
  w.e = l.epilogue;
  std::string why_not;
  if (!pipeline_conv(l, shape, cfg, w.conv, why_not)) {
    throw Error(fmt::format("split pipeline: network {}: {}", st.one.name, why_not));
  }
  w.s = sample_schedule(l, w.conv, shape, cfg);
  w.matmul = l.op == "dense";  // its convolution is its matmul's
  if (w.matmul) {
    w.mm.name = l.name;
    w.mm.m = in.n, w.mm.k = in.c * in.h * in.w, w.mm.n = w.conv.k;
    w.mm_data = job.dense;
  } else {
    w.conv_data = job.conv;
  }
  return w;
}

// The tensor a core's run produced for its layer.
NetworkTensor layer_output(const CoreLayerWork& w, LayerRun& run) {
  if (w.matmul) {
    return NetworkTensor{w.mm.m, w.mm.n, 1, 1, std::move(run.out)};
  }
  return NetworkTensor{w.conv.n, w.conv.k, w.conv.out_h(), w.conv.out_w(), std::move(run.out)};
}

// The sub-step's row: the system's counters, every layer's check, what each core ran.
LayerRun substep_run(const PipelineState& st, int t, int r, const std::vector<LayerRun>& runs,
                     const std::vector<std::string>& what, const Stats& system) {
  const HwConfig& cfg = st.target.config;
  LayerRun row;
  row.name = fmt::format("step {}.{}", t, r);
  row.kind = "pipeline";
  row.backend = st.target.backend;
  row.config = cfg.model_name;
  row.stats = system;
  row.peak_macs_per_cycle = uint64_t(cfg.batch) * cfg.block_in * cfg.block_out * cfg.num_cores();
  double read = 0, write = 0;
  for (size_t k = 0; k < runs.size(); ++k) {
    const LayerRun& l = runs[k];
    row.shape += fmt::format("{}core {}: {}", k ? "; " : "", k, what[k]);
    row.macs += l.macs, row.gemm_bound += l.gemm_bound;
    row.kernels += l.kernels, row.kernel_uops += l.kernel_uops;
    row.bound.compute_cycles = std::max(row.bound.compute_cycles, l.bound.compute_cycles);
    row.bound.gemm_cycles = std::max(row.bound.gemm_cycles, l.bound.gemm_cycles);
    read += double(l.bound.bytes.dram_read()), write += double(l.bound.bytes.write);
    row.bound.bytes.read += l.bound.bytes.read, row.bound.bytes.write += l.bound.bytes.write;
    row.checked = row.checked || l.checked;
    if (l.mismatches > 0 && row.mismatches == 0) {
      row.first_mismatch = fmt::format("core {} ({}): {}", k, what[k], l.first_mismatch);
    }
    row.mismatches += l.mismatches;
  }
  row.bound.memory_cycles = dram_cycles(read, write, cfg);
  row.bound.cycles = std::max(double(row.bound.compute_cycles), row.bound.memory_cycles);
  row.min_bytes = row.bound.bytes.total();
  row.verdict = verdict_of(row.bound, row.stats, cfg);
  row.split = fmt::format("pipeline: step {} sub-step {}", t, r);
  return row;
}

// Sub-step r of step t: core k runs the r-th layer of its stage on input t - k.
void run_substep(PipelineState& st, int t, int r) {
  const int cores = st.target.config.num_cores();
  std::vector<CoreLayerWork> works(static_cast<size_t>(cores));
  std::vector<const CoreLayerWork*> ptrs(size_t(cores), nullptr);
  std::vector<std::string> what(size_t(cores), "idle");
  for (int k = 0; k < int(st.plan.stages.size()); ++k) {
    const auto [first, last] = st.plan.stages[size_t(k)];
    const int i = t - k;
    if (i < 0 || i >= st.plan.inputs || first + r >= last) {
      continue;
    }
    const NetworkCursor& c = st.inputs[size_t(i)];
    const size_t layer = st.plan.vta_layers[size_t(first) + size_t(r)];
    if (c.next != layer) {  // the walk and the plan disagree: a bug, not a user's error
      throw Error(fmt::format("pipeline of network {}: input {} is not at layer '{}'", st.one.name,
                              i, st.one.layers[layer].name));
    }
    works[size_t(k)] = layer_work(st, c);
    ptrs[size_t(k)] = &works[size_t(k)];
    what[size_t(k)] = fmt::format("{} (input {})", st.one.layers[c.next].name, i);
  }
  if (std::count(ptrs.begin(), ptrs.end(), nullptr) == cores) {
    return;  // every stage of this step is shorter
  }
  Stats system;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<LayerRun> runs = run_layers_on_cores(st.target, ptrs, st.opt.check, system);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int k = 0; k < cores; ++k) {
    if (ptrs[size_t(k)] == nullptr) {
      continue;
    }
    const int i = t - k;
    NetworkCursor& c = st.inputs[size_t(i)];
    c.tensors[st.one.layers[c.next].name] = layer_output(works[size_t(k)], runs[size_t(k)]);
    ++c.next;
    run_host_layers(st.target, st.one, c, i == 0 ? st.result.host_ops : st.other_host_ops);
  }
  st.result.runs.push_back(substep_run(st, t, r, runs, what, system));
  st.result.runs.back().wall_seconds = wall;
  if (st.opt.on_layer) {
    st.opt.on_layer(st.result.runs.back());
  }
}

}  // namespace

NetworkRun run_network_pipeline(const Target& target, const Network& net,
                                const NetworkOptions& opt) {
  const PipelinePlan plan = plan_pipeline(net, target.config);
  if (!plan.why_not.empty()) {
    throw Error(fmt::format("split pipeline: network {}: {}", net.name, plan.why_not));
  }
  const Network one = sample_network(net);
  PipelineState st{
      target, one, plan, opt, network_sample_cursors(net, LayerWidths::of(target.config)), {}, {}};
  for (size_t i = 0; i < st.inputs.size(); ++i) {
    run_host_layers(target, one, st.inputs[i], i == 0 ? st.result.host_ops : st.other_host_ops);
  }
  const int steps = plan.inputs + int(plan.stages.size()) - 1;
  for (int t = 0; t < steps; ++t) {
    for (int r = 0; r < plan.longest(); ++r) {
      run_substep(st, t, r);
    }
  }
  // The outputs of the samples, in order: the batch's (NCHW, the sample outermost).
  const std::string& last = net.layers.back().name;
  for (NetworkCursor& c : st.inputs) {
    const std::vector<int8_t>& out = c.tensors.at(last).data;
    st.result.output.insert(st.result.output.end(), out.begin(), out.end());
  }
  return std::move(st.result);
}

}  // namespace vta::compiler
