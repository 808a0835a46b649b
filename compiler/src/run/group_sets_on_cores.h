// A grouped convolution's sets divided over the cores of a system (docs/multicore.md,
// "Grouped convolutions and ALU layers"): core k computes a contiguous range of the sets, one
// after the other in its own program, and all cores start together (one VTASystemBegin ...
// VTASystemRun for the layer). Every set has its own tensors in DRAM, as when one core runs
// them, so the cores' counters add up to the single core's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/run/grouped_conv_runner.h"

namespace vta::compiler {

// The sets of each core: contiguous ranges, sizes differing by at most one (the first cores get
// the larger ones).
struct GroupSetSplit {
  std::vector<std::pair<int, int>> ranges;  // [first, end) per core
  int most = 0;                             // sets of the busiest core
  std::string why;                          // "32 group sets of 1 group: 16 + 16 on 2 cores"
};
GroupSetSplit split_group_sets(const GroupedConvSplit& g, int cores);

// Runs every set with schedule `s` on its core of `split` in one run of all cores and writes
// the layer's output (N x K x OH x OW) into `out`. The run's counters are every core's added,
// its cycles the system's; name, shape and macs are the caller's to fill.
LayerRun run_group_sets_on_cores(const Target& target, const GroupedConvSplit& g, const Epilogue& e,
                                 const ConvSchedule& s, const ConvData& data,
                                 const GroupSetSplit& split, std::vector<int8_t>& out);

// Set `s`'s data (its input channels, block-diagonal weights, bias) and the placement of its
// output in the layer's (grouped_conv_runner.cc).
ConvData group_set_data(const GroupedConvSplit& g, const Epilogue& e, const ConvData& d, int s);
void place_group_set_output(const GroupedConvSplit& g, const std::vector<int8_t>& part, int s,
                            std::vector<int8_t>& out);

}  // namespace vta::compiler
