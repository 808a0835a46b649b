// A grouped convolution's sets divided over the cores of a system (docs/multicore.md,
// "Grouped convolutions and ALU layers"): core k computes a contiguous range of the sets (or of
// the sets' output-column tiles), one after the other in its own program, and all cores start
// together (one VTASystemBegin ... VTASystemRun for the layer). Every set has its own tensors in
// DRAM, as when one core runs them, so the cores' counters add up to the single core's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/run/grouped_conv_runner.h"

namespace vta::compiler {

// A part of one set a core computes: its output-column tiles [wt_begin, wt_end) (-1: to the
// last), all of them by default.
struct GroupSetPiece {
  int set = 0;
  int wt_begin = 0, wt_end = -1;
};

// The work of each core: whole sets in contiguous ranges when the sets divide evenly over the
// cores (or a set has one column tile), else contiguous ranges of the (set, column tile) pairs
// in set order, so that a set may be shared by two cores; range sizes differ by at most one
// unit (the first cores get the larger ones).
struct GroupSetSplit {
  std::vector<std::vector<GroupSetPiece>> cores;  // each core's pieces, in order
  std::string why;  // "9 group sets of 16 groups x 4 column tiles: 18 + 18 on 2 cores"
};
GroupSetSplit split_group_sets(const GroupedConvSplit& g, int w_tiles, int cores);

// Runs every set with schedule `s` on the cores (the split of split_group_sets for the sets'
// column tiles) in one run of all cores and writes the layer's output (N x K x OH x OW) into
// `out`. The run's counters are every core's added, its cycles the system's, its `split` the
// split's reason; name, shape and macs are the caller's to fill.
LayerRun run_group_sets_on_cores(const Target& target, const GroupedConvSplit& g, const Epilogue& e,
                                 const ConvSchedule& s, const ConvData& data, int cores,
                                 std::vector<int8_t>& out);

// Set `s`'s data (its input channels, block-diagonal weights, bias) and the placement of its
// output in the layer's (grouped_conv_runner.cc).
ConvData group_set_data(const GroupedConvSplit& g, const Epilogue& e, const ConvData& d, int s);
void place_group_set_output(const GroupedConvSplit& g, const std::vector<int8_t>& part, int s,
                            std::vector<int8_t>& out);

}  // namespace vta::compiler
