// FsimBackend: the untimed functional simulator (TO BE IMPLEMENTED by the fsim work).
#pragma once
#include "vta/sim/backend.h"
namespace vta {
class FsimBackend : public Backend {
 public:
  FsimBackend(const HwConfig& cfg, Dram& dram);
  const char* name() const override { return "fsim"; }
  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) override;
};
}  // namespace vta
