// What the runtime writes about the programs it builds, for debugging and replay: the program
// image of a synchronised program (runtime_set_program_dump, replayed by `vtasim run`), the
// VTA_DEBUG_LOG_INSN JSON file, and the VTA_DEBUG_DUMP_INSN / VTA_DEBUG_DUMP_UOP listings.
// Kept apart from the command queue, which only decides when each is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"

namespace vta {

class UopKernel;

// Where a synchronised program lies in DRAM.
struct ProgramLocation {
  uint32_t insn_phys = 0;
  size_t insn_count = 0;
  uint32_t uop_phys = 0;
  size_t uop_count = 0;
};

// Saves the stream, the uop image and every other live allocation of `dram` as a program image
// at `path_pattern`, its first "%d" replaced by `program_index`.
void write_program_image(const std::string& path_pattern, uint64_t program_index,
                         const HwConfig& cfg, const Dram& dram, const ProgramLocation& loc);

// VTA_DEBUG_LOG_INSN: the stream as a JSON array of to_json(insn) in $TVM_INSN_DUMP_FILE
// (default insn.json). Throws Error if the file cannot be written.
void write_insn_log(const std::vector<Insn>& insns);

// VTA_DEBUG_DUMP_INSN: one disassembled line per instruction, on stderr (upstream: stdout).
void print_program(const std::vector<Insn>& insns, size_t uop_count);

// VTA_DEBUG_DUMP_UOP: a recorded kernel's loops and micro-ops, on stderr (upstream: stdout).
void print_uop_kernel(const UopKernel& k);

}  // namespace vta
