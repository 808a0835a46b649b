// The device memory rule for a program's DMA (issue-time checks cannot see a buffer freed
// before the program runs): every LOAD and STORE must stay inside the one live allocation it
// starts in. A tile that runs past the end of its buffer, or an access to memory no live
// allocation holds (a freed buffer), is a ProgramError naming the instruction, the buffer and
// the bytes. Runtime::set_dma_bounds_check / $VTA_DMA_BOUNDS=off switch the rule off.
#pragma once

#include <cstdint>
#include <vector>

#include "device_memory.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"

namespace vta {

// Checks the DRAM accesses of `insns` (instruction i is the program's instruction i); `who`
// names the call in the error.
void check_dma_bounds(const DeviceMemory& mem, const HwConfig& cfg, const std::vector<Insn>& insns,
                      const char* who);

// The same for an encoded stream of `count` instructions at physical `insn_phys` (VTADeviceRun).
// A stream outside allocated DRAM, or an instruction that does not decode, is left to the
// backend, which reports it.
void check_dma_bounds(const DeviceMemory& mem, const HwConfig& cfg, uint32_t insn_phys,
                      uint32_t count, const char* who);

}  // namespace vta
