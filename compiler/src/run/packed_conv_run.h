// The part of a conv2d run that sees only bytes: the layer's tensors already blocked and packed
// at the config's lane widths go to the device, the program runs, and the blocked output comes
// back as bytes. run_conv2d (int8_t lanes) and run_conv2d_wide (int32_t lanes) pack and unpack
// around it.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

// DRAM images of a plan's tensors (bias, residual, shifts empty when the epilogue has none).
struct PackedConv {
  std::vector<int8_t> inp, wgt, bias, residual, shifts;
};

// Runs the plan (`p`: the layer as written, for the report) and returns the run with its
// counters; `out_bytes` receives the blocked output buffer. LayerRun::out is left empty.
LayerRun run_packed_conv2d(const Target& target, const Conv2dParams& p, const TilePlan& plan,
                           const PackedConv& packed, std::vector<int8_t>& out_bytes);

}  // namespace vta::compiler
