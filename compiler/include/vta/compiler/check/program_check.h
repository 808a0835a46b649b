// Static verifier of a synchronised program (the stream the runtime hands to the device): it
// replays the dependency tokens to order the instructions of the three stages (vector clocks)
// and reports any pair of instructions on different stages that touch overlapping SRAM entries
// (load writes vs GEMM reads of INP/WGT; GEMM/ALU/LOAD ACC writes vs STORE reads of the
// accumulator/output buffer) without being ordered by tokens. Such a race can pass on fsim but
// give timing-dependent results on hardware. Also reports deadlocks, tokens left over and any
// instruction not ordered before the first FINISH (a backend may retire FINISH without it, so
// whether it runs would depend on the backend's timing). Time: O(n log n) in instructions plus
// the micro-ops LOAD UOPs bring in, whatever the number of overlapping pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vta/sim/dram.h"

#include "vta/sim/hw_config.h"

namespace vta {
struct SyncedProgram;  // vta/runtime_cpp.h: one synchronised stream as handed to the device
}  // namespace vta

namespace vta::compiler {

struct ProgramCheck {
  size_t insns = 0;
  size_t checked_pairs = 0;        // overlapping cross-stage pairs examined
  size_t races = 0;                // pairs not ordered by tokens
  size_t leftover_tokens = 0;      // tokens still queued at the end
  size_t unordered_at_finish = 0;  // instructions not ordered before the first FINISH
  std::string first_problem;  // the deadlock, else the first race, else (no tokens left over) the
                              // first instruction not ordered before FINISH
  bool ok() const {
    return races == 0 && leftover_tokens == 0 && unordered_at_finish == 0 && first_problem.empty();
  }
};

ProgramCheck check_program(const SyncedProgram& program, const HwConfig& cfg);

// check_program on a stream of `count` instructions at `insn_phys` in `dram` (a replayed
// program image): the micro-op image it sees is the DRAM span the stream's LOAD UOPs read (at
// most 64 MiB). A stream outside allocated DRAM is not checked (insns = 0): the backends'
// fetch checks name it.
ProgramCheck check_stream(const HwConfig& cfg, const Dram& dram, uint32_t insn_phys,
                          uint32_t count);
// "" if `check` is ok, else its first problem ("N dependency tokens left over" if none named).
std::string describe_problem(const ProgramCheck& check);

}  // namespace vta::compiler
