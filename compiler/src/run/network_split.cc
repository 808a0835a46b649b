#include "vta/compiler/run/network_split.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "ir/shape_inference.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/core_split.h"
#include "vta/sim/error.h"

namespace vta::compiler {

const char* network_split_name(NetworkSplit split) {
  switch (split) {
    case NetworkSplit::kAuto:
      return "auto";
    case NetworkSplit::kChannels:
      return "channels";
    case NetworkSplit::kBatch:
      return "batch";
    case NetworkSplit::kPipeline:
      return "pipeline";
    case NetworkSplit::kNone:
      break;
  }
  return "none";
}

NetworkSplit parse_network_split(const std::string& text) {
  for (NetworkSplit s : {NetworkSplit::kAuto, NetworkSplit::kChannels, NetworkSplit::kBatch,
                         NetworkSplit::kPipeline, NetworkSplit::kNone}) {
    if (text == network_split_name(s)) {
      return s;
    }
  }
  throw Error(fmt::format("unknown split '{}' (auto, channels, batch, pipeline or none)", text));
}

LayerSplit layer_split_of(NetworkSplit split) {
  return split == NetworkSplit::kChannels ? LayerSplit::kChannels
         : split == NetworkSplit::kBatch  ? LayerSplit::kBatch
                                          : LayerSplit::kNone;
}

namespace {

// "1.23M" / "45.6K" / "789".
std::string cycles_text(double c) {
  return c >= 1e6   ? fmt::format("{:.2f}M", c / 1e6)
         : c >= 1e3 ? fmt::format("{:.1f}K", c / 1e3)
                    : fmt::format("{:.0f}", c);
}

// Errors of a split that cannot run on `cfg` for a workload of batch `batch`.
void check_asked(NetworkSplit asked, int cores, int batch, const std::string& what) {
  if (asked != NetworkSplit::kNone && asked != NetworkSplit::kAuto && cores < 2) {
    throw Error(fmt::format(
        "split {}: the config has one core; a split needs a system of several (set CORES, e.g. "
        "--set CORES=2)",
        network_split_name(asked)));
  }
  if (asked == NetworkSplit::kBatch && batch < 2) {
    throw Error(fmt::format(
        "split batch: {} has a batch of 1; a batch split needs a batch of 2 or more", what));
  }
}

// The choice among the candidates, the smallest estimate of those that can run (ties: the
// earlier), with the reason in words.
SplitChoice decide(std::vector<SplitCandidate> cands, NetworkSplit asked, int cores) {
  SplitChoice c;
  c.cores = cores;
  c.candidates = std::move(cands);
  std::string figures;
  for (const SplitCandidate& k : c.candidates) {
    figures += figures.empty() ? "" : ", ";
    figures += k.why_not.empty()
                   ? fmt::format("{} est {} cycles{}", network_split_name(k.split),
                                 cycles_text(k.est_cycles), k.detail)
                   : fmt::format("{} not possible ({})", network_split_name(k.split), k.why_not);
  }
  if (asked != NetworkSplit::kAuto) {
    c.split = asked;
    c.reason = fmt::format("{} (asked); estimates on {} cores: {}", network_split_name(asked),
                           cores, figures);
    return c;
  }
  const SplitCandidate* best = nullptr;
  for (const SplitCandidate& k : c.candidates) {
    if (k.split != NetworkSplit::kNone && k.why_not.empty() &&
        (best == nullptr || k.est_cycles < best->est_cycles)) {
      best = &k;
    }
  }
  c.split = best ? best->split : NetworkSplit::kNone;
  c.reason = fmt::format("auto: {}, the smallest estimate on {} cores: {}",
                         network_split_name(c.split), cores, figures);
  return c;
}

// A conv2d / dense layer's estimate under each candidate (none, channels, batch), added to
// `sums`; `why_not` gets the batch's reason if the layer's batch cannot be split.
void add_layer_estimates(const Conv2dParams& p, const Epilogue& e, const ConvSchedule& s,
                         bool matmul, const HwConfig& cfg, std::vector<SplitCandidate>& sums) {
  const int cores = cfg.num_cores();
  for (SplitCandidate& k : sums) {
    LayerSplit ls = layer_split_of(k.split);
    if (matmul && ls == LayerSplit::kBatch) {
      ls = LayerSplit::kColumns;
    }
    const CoreSplitPlan plan = split_layer(p, s, ls, cores, cfg);
    k.est_cycles += estimate_split(e, plan, cfg).cycles;
  }
}

// The pipeline's candidate: its estimate, with the stages and the parts of the estimate.
SplitCandidate pipeline_candidate(const Network& net, const PipelinePlan& p) {
  SplitCandidate c{NetworkSplit::kPipeline, p.est_cycles, p.why_not, ""};
  if (p.why_not.empty()) {
    c.detail = fmt::format(
        " ({} inputs in {} steps, fill and drain included; the cores alone {}, the DRAM alone {}; "
        "stages {})",
        p.inputs, p.steps(), cycles_text(p.est_steps), cycles_text(p.est_dram), p.describe(net));
  }
  return c;
}

// A layer its own runner divides over the cores whatever the split (a grouped convolution's
// group sets or their column tiles, an ALU layer's tiles): its single-core estimate `c` shared
// evenly by the cores.
double divided_estimate(const HwConfig& cfg, double c) {
  return c / double(cfg.num_cores());
}

std::vector<SplitCandidate> empty_candidates(int batch) {
  std::vector<SplitCandidate> c{{NetworkSplit::kNone, 0, "", ""},
                                {NetworkSplit::kChannels, 0, "", ""},
                                {NetworkSplit::kBatch, 0, "", ""}};
  if (batch < 2) {
    c[2].why_not = "a batch of 1";
  }
  return c;
}

}  // namespace

SplitChoice choose_layer_split(const Conv2dParams& p, const Epilogue& e, const ConvSchedule& s,
                               bool matmul, const HwConfig& cfg, NetworkSplit asked) {
  const int cores = cfg.num_cores();
  const int batch = matmul ? p.w * p.n : p.n;
  check_asked(asked, cores, batch, "the layer");
  if (asked == NetworkSplit::kPipeline) {
    throw Error(
        "split pipeline: a pipeline cuts a network's layers into stages; one layer has none "
        "(vtasim network)");
  }
  if (cores < 2) {
    return SplitChoice{};
  }
  std::vector<SplitCandidate> cands = empty_candidates(batch);
  add_layer_estimates(p, e, s, matmul, cfg, cands);
  return decide(std::move(cands), asked, cores);
}

SplitChoice choose_network_split(const Network& net, const HwConfig& cfg, NetworkSplit asked) {
  const int cores = cfg.num_cores();
  check_asked(asked, cores, net.n, "network " + net.name);
  if (cores < 2) {
    return SplitChoice{};
  }
  std::vector<SplitCandidate> cands = empty_candidates(net.n);
  const std::map<std::string, TensorShape> shapes = infer_network_shapes(net);
  for (const NetworkLayer& l : net.layers) {
    const TensorShape& in = shapes.at(l.input);
    if (choose_placement(l, in, &cfg).place != Placement::kVta) {
      continue;  // the host's time is the same whatever the split
    }
    const VtaLowering& vta = op_def(l.op).vta;
    if (vta.vta_conv == nullptr || l.groups > 1) {
      const double c = vta.estimate_cycles ? double(vta.estimate_cycles(l, in, cfg)) : 0.0;
      for (SplitCandidate& k : cands) {
        k.est_cycles += k.split == NetworkSplit::kNone ? c : divided_estimate(cfg, c);
      }
      continue;
    }
    const Conv2dParams p = vta.vta_conv(l, in, cfg);
    const ConvSchedule s = l.schedule ? *l.schedule : vta.auto_schedule(l, in, cfg);
    // A dense layer is a matmul: its batch lies in its convolution's columns (the convolution
    // then has another batch than the input; where they agree both splits divide alike).
    add_layer_estimates(p, l.epilogue, s, p.n != in.n, cfg, cands);
  }
  PipelinePlan pipe = plan_pipeline(net, cfg);
  if (asked == NetworkSplit::kPipeline && !pipe.why_not.empty()) {
    throw Error(fmt::format("split pipeline: network {}: {}", net.name, pipe.why_not));
  }
  cands.push_back(pipeline_candidate(net, pipe));
  SplitChoice c = decide(std::move(cands), asked, cores);
  c.pipeline = std::move(pipe);
  return c;
}

}  // namespace vta::compiler
