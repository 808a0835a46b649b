// A network's samples streamed through a pipeline over the cores of a system (a config with
// CORES, docs/multicore.md): the network's VTA layers cut into consecutive stages, one per core,
// balanced by the schedule cost model (estimate_cycles of each layer on one sample); a batch of
// N is N inputs of batch 1.
//
// A run of several cores takes one program per core (VTASystemBegin ... VTASystemRun), so the
// pipeline runs in steps: in step t core k works on input t - k, and within a step sub-step r
// runs, on every core at once, the r-th layer of its stage on its input (a core whose stage is
// shorter idles; a sub-step in which every core would idle is skipped). Host layers run between
// sub-steps. A stage's output is the next stage's input in the next step. Each layer is given
// the weights it has in the network of the whole batch, so the outputs are run_network's.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

// Cuts `costs` (of consecutive items) into min(stages, items) contiguous groups, none empty,
// minimising the largest group's sum (of equal ones: the one whose first groups are the
// longest). Returns [begin, end) item ranges; an empty list for no items.
std::vector<std::pair<int, int>> partition_stages(const std::vector<double>& costs, int stages);

// The pipeline of a network on a config, as the cost model plans it.
struct PipelinePlan {
  std::vector<size_t> vta_layers;           // the VTA layers (indices into Network::layers)
  std::vector<std::string> layer_names;     // their names
  std::vector<double> layer_cycles;         // the estimate of each on one sample
  std::vector<std::pair<int, int>> stages;  // one per core used: ranges into vta_layers
  int inputs = 0;                           // the network's batch
  double est_cycles = 0;  // max(sum of the sub-steps' slowest layers, DRAM time of all traffic)
  double est_steps = 0;   // the sub-steps' part of it
  double est_dram = 0;    // the DRAM part
  std::string why_not;    // why the network cannot run as a pipeline (empty: it can)

  // "c1..c2 (est 12.3K per input) | down..fc (est 10.1K per input)"
  std::string describe(const Network& net) const;
  // The longest stage's count of layers (the sub-steps of a step).
  int longest() const;
  // The sub-steps the run takes: those of every step in which some core has a layer.
  int substeps() const;
};
PipelinePlan plan_pipeline(const Network& net, const HwConfig& cfg);

// The network run as plan_pipeline plans it on the target (run_network with
// NetworkOptions::pipeline). Errors (vta::Error) name why a network cannot run as a pipeline
// ("split pipeline: network N has a batch of 1 ..."). The runs are the sub-steps ("step 2.1",
// kind "pipeline"), each with the system's counters and every layer's check.
NetworkRun run_network_pipeline(const Target& target, const Network& net,
                                const NetworkOptions& opt);

}  // namespace vta::compiler
