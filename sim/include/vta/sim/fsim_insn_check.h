// Static legality checks of one decoded instruction (the fetch unit's view: fields that are
// wrong whatever the machine state). fsim runs them on every fetched instruction; the timed
// backends may call them too so that all backends reject the same programs with the same words.
// Dynamic checks (SRAM ranges, DRAM addresses, deadlock) belong to the executing unit.
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace vta
