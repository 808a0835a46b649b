// The verifier as it was before it became a single sweep: every overlapping (writer, reader)
// pair of two stages is compared through the vector clocks, one pair at a time (quadratic), and
// every instruction is compared with the first FINISH. Kept as the tests' oracle for
// check_program: both must give the same counts and the same first problem.
#pragma once

#include "vta/compiler/check/program_check.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/dram.h"

namespace vta::compiler::oracle {

ProgramCheck pairwise_check_program(const SyncedProgram& program, const HwConfig& cfg);

// The program check_stream sees in `dram` (the instructions, and the micro-op span its LOAD UOPs
// read, up to 64 MiB); no instructions if the stream is not allocated DRAM.
SyncedProgram stream_program(const HwConfig& cfg, const Dram& dram, uint32_t insn_phys,
                             uint32_t count);

}  // namespace vta::compiler::oracle
