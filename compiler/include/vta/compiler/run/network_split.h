// Which split a network runs with on a system of several cores (a config with CORES,
// docs/multicore.md), and why: the cost model's estimate of the network's VTA cycles under each
// candidate (core_split.h: each conv2d / dense layer's split estimate; every other VTA layer on
// core 0 alone at its own estimate; pipeline_split.h: the pipeline's steps), the smallest chosen.
#pragma once

#include <string>
#include <vector>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/run/pipeline_split.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

enum class NetworkSplit { kNone, kAuto, kChannels, kBatch, kPipeline };

// "none", "auto", "channels", "batch", "pipeline"; parse throws Error naming the text and the
// choices.
const char* network_split_name(NetworkSplit split);
NetworkSplit parse_network_split(const std::string& text);
// The layer split a network split runs its conv2d / dense layers with (kNone for kNone and
// kPipeline: a pipeline runs each layer on one core).
LayerSplit layer_split_of(NetworkSplit split);

struct SplitCandidate {
  NetworkSplit split = NetworkSplit::kNone;
  double est_cycles = 0;  // the network's VTA layers, summed (0: not possible)
  std::string why_not;    // why the candidate cannot run (empty: it can)
  std::string detail;     // how the estimate comes about (the pipeline's stages)
};

struct SplitChoice {
  NetworkSplit split = NetworkSplit::kNone;  // kChannels, kBatch or kNone
  int cores = 1;
  std::vector<SplitCandidate> candidates;  // none (core 0 alone), channels, batch[, pipeline]
  std::string reason;                      // "auto: channels, est 1.20M cycles < batch ..."
  PipelinePlan pipeline;                   // a network's pipeline plan (stages, estimate)
};

// The candidates' estimates and the choice for `asked` on `cfg`. Errors (vta::Error) for a split
// that cannot run: any split but none on a config of one core ("... set CORES"), batch on a
// batch of 1, pipeline on a network that cannot run as one (PipelinePlan::why_not: a batch of 1,
// a single VTA layer, ...). kAuto on one core is kNone.
SplitChoice choose_network_split(const Network& net, const HwConfig& cfg, NetworkSplit asked);

// The same for one conv2d / matmul layer (`matmul`: its batch is its rows); pipeline is an error
// (a pipeline needs a network's layers).
SplitChoice choose_layer_split(const Conv2dParams& p, const Epilogue& e, const ConvSchedule& s,
                               bool matmul, const HwConfig& cfg, NetworkSplit asked);

}  // namespace vta::compiler
