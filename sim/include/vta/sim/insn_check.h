// Legality checks of decoded instructions, shared by every backend (fsim, cycle, rtl) so that all
// of them reject the same programs with the same words. Static checks need only the instruction;
// range checks need the configuration (SRAM depths) and the DRAM (allocated memory). Checks that
// depend on machine state (micro-op indices read from the uop SRAM, deadlock) stay in the
// executing unit.
#pragma once

#include <cstdint>
#include <string>

#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"

namespace vta {

class Dram;

// "load", "compute", "store" or "fetch" (for kStageNone).
const char* stage_unit_name(Stage stage);

// Prefix of every program error about instruction `index`: "instruction 7 (GEMM, compute unit)".
std::string insn_error_prefix(uint64_t index, const Insn& insn);

// Throws ProgramError "instruction N (OP, unit): field 'F' = V: why" when `insn` is illegal:
// unknown opcode; LOAD of OUT or an unknown memory type; STORE of anything but OUT (a STORE with
// x_size 0 is a NOP and may name any known type, as the runtime's store NOP names UOP); STORE
// padding; dependency flags a stage does not have (load: pop_prev/push_prev, store:
// pop_next/push_next); unknown ALU opcode.
void check_insn_static(uint64_t index, const Insn& insn);

// The fetch unit's check of a whole stream: the insn_count * 16 bytes at insn_phys must lie in
// allocated DRAM. Returns their host address, else throws ProgramError "fetch unit: the
// instruction stream at physical address ... is outside allocated DRAM".
const uint8_t* checked_insn_stream(const Dram& dram, uint32_t insn_phys, uint32_t insn_count);

// Range checks of one LOAD (x_size > 0): the tile incl. padding fits its SRAM, and every DRAM row
// lies in allocated memory. Throws ProgramError naming the instruction and field.
void check_load_ranges(const HwConfig& cfg, const Dram& dram, uint64_t index, const Insn& insn);
// Range checks of one STORE (x_size > 0): the source fits the OUT buffer, the rows are allocated.
void check_store_ranges(const HwConfig& cfg, const Dram& dram, uint64_t index, const Insn& insn);
// GEMM/ALU: uop_end within the uop SRAM and uop_bgn <= uop_end.
void check_uop_range(const HwConfig& cfg, uint64_t index, const Insn& insn);

}  // namespace vta
