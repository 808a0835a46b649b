// A network's samples streamed through a pipeline over the cores of a system (a config with
// CORES, docs/multicore.md): the network's VTA layers cut into consecutive stages, one per core,
// balanced by the schedule cost model (estimate_cycles of each layer on one sample); a batch of
// N is N inputs of batch 1.
//
// The stages are synchronised through DRAM. A stage's layers run back to back in one program of
// its core (a barrier between layers: run/core_programs.h), each layer loading its input and
// residual from the buffers earlier layers stored, on this core or another, wherever the blocked
// layouts agree. A host layer between two VTA layers (a pool, a flatten) cuts a stage into
// segments: the host runs between runs of the cores. Segment g of the whole pipeline (the
// stages' segments in order) works on input t - g in step t, so in step t every core runs, in
// one program, each of its segments on that segment's input, and all cores start together (one
// VTASystemBegin ... VTASystemRun per step). Each layer is given the weights it has in the
// network of the whole batch, so the outputs are run_network's.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

// Cuts `costs` (of consecutive items) into min(stages, items) contiguous groups, none empty,
// minimising the largest group's sum (of equal ones: the one whose first groups are the
// longest). Returns [begin, end) item ranges; an empty list for no items.
std::vector<std::pair<int, int>> partition_stages(const std::vector<double>& costs, int stages);

// A stage's run of consecutive VTA layers with no host layer between them: one part of its
// core's program in a step.
struct PipelineSegment {
  int core = 0;
  int first = 0, last = 0;  // [first, last) into PipelinePlan::vta_layers
};

// The pipeline of a network on a config, as the cost model plans it.
struct PipelinePlan {
  std::vector<size_t> vta_layers;               // the VTA layers (indices into Network::layers)
  std::vector<std::string> layer_names;         // their names
  std::vector<double> layer_cycles;             // the estimate of each on one sample
  std::vector<ConvSchedule> schedules;          // the schedule of each on one sample
  std::vector<double> layer_read, layer_write;  // the DRAM bytes of each on one sample
  std::vector<std::pair<int, int>> stages;      // one per core used: ranges into vta_layers
  std::vector<PipelineSegment> segments;        // the stages cut at host layers, in order
  int inputs = 0;                               // the network's batch
  // The sum over the steps of max(the busiest core's layers, the DRAM time of the step's bytes).
  double est_cycles = 0;
  double est_steps = 0;  // the sum over the steps of the busiest core's layers alone
  double est_dram = 0;   // the DRAM time of every step's bytes
  std::string why_not;   // why the network cannot run as a pipeline (empty: it can)

  // "core 0: c1..c2 (est 12.3K per input), core 1: down | fc (est 10.1K per input)" ("|": a
  // host layer between two segments)
  std::string describe(const Network& net) const;
  // The steps the run takes: inputs + segments - 1 (the first and last fill and drain).
  int steps() const;
};
PipelinePlan plan_pipeline(const Network& net, const HwConfig& cfg);

// The network run as plan_pipeline plans it on the target (run_network with
// NetworkOptions::pipeline). Errors (vta::Error) name why a network cannot run as a pipeline
// ("split pipeline: network N has a batch of 1 ..."). The runs are the steps ("step 2", kind
// "pipeline"), each with the system's counters and every layer's check.
NetworkRun run_network_pipeline(const Target& target, const Network& net,
                                const NetworkOptions& opt);

}  // namespace vta::compiler
