// What the CLI's reports add to a run, for the Python results: time at the design's clock, the
// GEMM bound ratio, the energy model's estimate and the area model's resources with the verdict
// on the board of the config's TARGET (explore/README.md).
#pragma once

#include <pybind11/pybind11.h>

#include "vta/compiler/run/layer_runner.h"
#include "vta/sim/hw_config.h"

namespace vta::py {

// Adds "time_s", "cycles_over_bound", "energy" and "area" (with "fits" and "verdict" when the
// TARGET is a known board) to `d`, the dict of `run` on design `cfg`.
void add_design_figures(pybind11::dict& d, const HwConfig& cfg, const compiler::LayerRun& run);

}  // namespace vta::py
