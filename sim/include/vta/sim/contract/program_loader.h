// What happens to an instruction stream before cycle 0, on every backend: the fetch unit's
// checks (the stream lies in allocated DRAM and is 16-byte aligned), decoding, the static
// legality of each instruction, and the routing of instructions to the stage that executes
// them. One wording for every fetch-time error.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"

namespace vta {

class Dram;

struct LoadedProgram {
  uint32_t insn_phys = 0;
  std::vector<Insn> insns;                         // decoded and statically checked
  std::array<std::vector<uint32_t>, 4> per_stage;  // index = Stage: instruction indices in order

  uint32_t count() const { return static_cast<uint32_t>(insns.size()); }
};

// Throws ProgramError naming the fetch unit (stream outside DRAM or misaligned) or the
// instruction, unit and field (check_insn_static).
LoadedProgram load_program(const IsaCodec& codec, const Dram& dram, uint32_t insn_phys,
                           uint32_t insn_count);

// The SRAM and DRAM range checks of every instruction before the first FINISH, for a backend
// that cannot check them as it executes (the RTL checks only micro-op indices itself).
void check_ranges_until_finish(const HwConfig& cfg, const Dram& dram, const LoadedProgram& program);

}  // namespace vta
