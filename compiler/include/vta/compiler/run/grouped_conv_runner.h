// A grouped (or depthwise) convolution on VTA's GEMM core: the groups are taken in sets whose
// input and output channels fill whole blocks (the fewest consecutive groups with
// set * C/groups a multiple of BLOCK_IN and set * K/groups a multiple of BLOCK_OUT; all groups
// when no smaller set divides them), and each set runs as an ordinary convolution whose weights
// are block-diagonal: a group's output channels read only its own input channels, the other
// weights are zeros. A depthwise layer on a 16-wide block is 16 channels per set with a
// diagonal 16x16 weight block: 16 of the GEMM's 256 multipliers do useful work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

struct GroupedConvSplit {
  int groups = 1;
  int per_set = 1;  // groups per set
  int sets = 1;
  Conv2dParams whole;          // the layer: all channels (c, k) of the input and output
  Conv2dParams set;            // one set's convolution
  uint64_t true_macs() const;  // of the grouped layer (not the zeros)
  // `whole` with c and k of all channels; throws vta::Error for groups that do not divide them.
  static GroupedConvSplit make(const Conv2dParams& whole, int groups, const HwConfig& cfg);
};

// Cycles of the sets' programs with the automatic schedule (auto_schedule.h's estimate) and the
// start of each program. Throws vta::Error when no schedule fits.
uint64_t grouped_conv_cycle_estimate(const GroupedConvSplit& g, const Epilogue& e,
                                     const HwConfig& cfg);

// `data`: x of the whole input, w as [K][C/groups][KH][KW], bias of K. Every set runs with
// schedule `s` (for GroupedConvSplit::set); the run's counters are the sum over the sets. With
// `reference` (N x K x OH x OW), LayerRun::checked and its mismatches.
LayerRun run_conv2d_in_group_sets(const Target& target, const GroupedConvSplit& g,
                                  const Epilogue& e, const ConvSchedule& s, const ConvData& data,
                                  const std::vector<int8_t>* reference);

}  // namespace vta::compiler
