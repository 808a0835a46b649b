// The memory model "fixed": DramTarget, the memory port of the timing contract (sim/README.md
// section 2): fixed read and write latencies, DRAM_CYCLES_PER_BEAT, one shared read data
// channel and one write data channel.
#include <memory>

#include "vta/sim/cycle/dram_target.h"

namespace vta::cycle {

// Defined here so that every program that uses the default also links this registration.
const char* const kDefaultMemoryModel = "fixed";

namespace {

std::unique_ptr<MemoryTarget> make_fixed(sc_core::sc_module_name name, const HwConfig& cfg,
                                         Dram& dram) {
  return std::make_unique<DramTarget>(name, cfg, dram);
}

}  // namespace

void link_fixed_memory_model() {}

VTA_REGISTER(MemoryModelEntry, fixed_memory,
             {"fixed", 0,
              "the timing contract's DRAM: fixed read/write latencies, DRAM_CYCLES_PER_BEAT, "
              "one read and one write data channel",
              &make_fixed});

}  // namespace vta::cycle
