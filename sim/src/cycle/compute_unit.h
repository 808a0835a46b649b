// ComputeUnit: VTA's compute stage. LOAD UOP (read client 1) and LOAD ACC / ACC_8BIT (client
// 4) into its private SRAMs, the GEMM core (BATCH x BLOCK_IN x BLOCK_OUT MACs per cycle, one
// uop iteration per cycle), the tensor ALU (one uop iteration per cycle with an immediate, one
// per two cycles with a vector operand) and FINISH. Pops l2g/s2g, pushes g2l/g2s.
#pragma once

#include "pipeline_unit.h"

namespace vta::cycle {

// Cycles from the issue of a GEMM/ALU uop iteration to the write of its result (uop read,
// operand read, multiply / ALU, accumulate and write): the end cycle of a GEMM with N
// iterations is S + N + kComputePipelineDepth.
constexpr uint64_t kComputePipelineDepth = 4;

struct ComputeStats {
  uint64_t gemm_active_cycles = 0;  // uop iterations issued by non-reset GEMMs
  uint64_t alu_active_cycles = 0;   // ALU issue cycles (N with imm, 2N vector)
};

class ComputeUnit : public PipelineUnit {
 public:
  ComputeUnit(sc_core::sc_module_name name, CoreShared& core)
      : PipelineUnit(name, core, kStageCompute) {}

  const ComputeStats& compute_stats() const { return m_cstats; }
  void clear_compute_stats() { m_cstats = ComputeStats{}; }

 protected:
  uint64_t execute(uint32_t index, const Insn& insn, uint64_t s) override;

 private:
  ComputeStats m_cstats;
};

}  // namespace vta::cycle
