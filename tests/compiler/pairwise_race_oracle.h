// The verifier as it was before it became a single sweep: every overlapping (writer, reader)
// pair of two stages is compared through the vector clocks, one pair at a time (quadratic), and
// every instruction is compared with the first FINISH. Kept as the tests' oracle for
// check_program: both must give the same counts and the same first problem.
#pragma once

#include "vta/compiler/program_check.h"

namespace vta::compiler::oracle {

ProgramCheck pairwise_check_program(const SyncedProgram& program, const HwConfig& cfg);

}  // namespace vta::compiler::oracle
