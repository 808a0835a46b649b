// The two software backends that equivalence tests and benchmarks run side by side: fsim (the
// functional reference) and the SystemC cycle model.
#pragma once

#include <memory>

#include "vta/sim/backend.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"

namespace vta::testprog {

// FsimBackend when `cycle` is false, CycleBackend otherwise, both on `dram`.
std::unique_ptr<Backend> make_fsim_or_cycle(bool cycle, const HwConfig& cfg, Dram& dram);

}  // namespace vta::testprog
