#include "software_backends.h"

#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/fsim.h"

namespace vta::testprog {

std::unique_ptr<Backend> make_fsim_or_cycle(bool cycle, const HwConfig& cfg, Dram& dram) {
  if (cycle) {
    return std::make_unique<CycleBackend>(cfg, dram);
  }
  return std::make_unique<FsimBackend>(cfg, dram);
}

}  // namespace vta::testprog
