// How one layer's output tiles go to the cores of a system (a config with CORES,
// docs/multicore.md): every core computes a disjoint range of the layer's output tiles into the
// same output tensor in DRAM, and all cores start together (one run of several cores per layer).
//
//   channels: output-channel tiles (each core reads the whole input and its own weights);
//             tile_oc_blocks is cut to the size that leaves the busiest core the fewest blocks
//   batch:    batch blocks (each core reads its own samples and all the weights); a matmul's
//             (dense layer's) batch is its rows, which lie in the output columns: column tiles,
//             tile_w cut the same way
//
// A layer with fewer tiles of the split's kind than two runs on core 0 alone, and says why. The
// cost model of a split is the schedule's own (auto_schedule.h: estimate_cycles of each core's
// slice as a layer of its own) held to the shared DRAM: max(the slowest core's estimate, the
// DRAM time of every core's traffic together).
#pragma once

#include <string>
#include <vector>

#include "vta/compiler/codegen/conv_codegen.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

// "none", "channels", "batch", "columns".
const char* layer_split_name(LayerSplit split);

// The tiles of each core for one layer.
struct CoreSplitPlan {
  LayerSplit split = LayerSplit::kNone;  // kNone: core 0 alone (`why` says why)
  ConvSchedule schedule;                 // the layer's schedule, its tiles cut for the split
  std::vector<ConvTileRange> ranges;     // one per core; an empty range leaves the core idle
  std::vector<Conv2dParams> slices;      // each core's part as a layer of its own (k = 0: idle)
  std::string why;                       // "3 output-channel blocks: 2 + 1 on 2 cores"
};

// Splits layer `p` (as written; `s` may fold its kernel window) over `cores` cores. Throws
// nothing for a layer that cannot be split: the plan then has split kNone.
CoreSplitPlan split_layer(const Conv2dParams& p, const ConvSchedule& s, LayerSplit split, int cores,
                          const HwConfig& cfg);

// The cost model's figures of a layer on a split.
struct SplitEstimate {
  double cycles = 0;    // max(core_max, dram)
  double core_max = 0;  // the slowest core's estimate_cycles
  double dram = 0;      // dram_cycles of all cores' estimated traffic
  double bytes = 0;     // that traffic (read + write)
  LayerBound bound;     // compute: the busiest core's; memory: all cores' minimum bytes
};
SplitEstimate estimate_split(const Epilogue& e, const CoreSplitPlan& plan, const HwConfig& cfg);

}  // namespace vta::compiler
