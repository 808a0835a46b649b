// The timed implementation of the memory model "fixed" (described in
// sim/src/fixed_memory_model.cc): DramTarget, the memory port of the timing contract.
#include <memory>

#include "vta/sim/cycle/dram_target.h"

namespace vta::cycle {

namespace {

std::unique_ptr<MemoryTarget> make_fixed(sc_core::sc_module_name name, const HwConfig& cfg,
                                         Dram& dram) {
  return std::make_unique<DramTarget>(name, cfg, dram);
}

}  // namespace

VTA_REGISTER_TIMED_MEMORY_MODEL(fixed, &make_fixed);

}  // namespace vta::cycle
