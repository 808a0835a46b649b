// ComputeUnit: VTA's compute stage. LOAD UOP (read client uop) and LOAD ACC / ACC_8BIT (read
// client acc) into its private SRAMs, the GEMM core (BATCH x BLOCK_IN x BLOCK_OUT MACs per
// cycle, one uop iteration per cycle), the tensor ALU (one uop iteration per cycle with an
// immediate, one per two cycles with a vector operand) and FINISH. Pops l2g/s2g, pushes
// g2l/g2s. The pipeline depth is the contract's kComputePipelineDepth (timing_constants.h).
#pragma once

#include "pipeline_unit.h"

namespace vta::cycle {

struct ComputeStats {
  uint64_t gemm_active_cycles = 0;  // uop iterations issued by non-reset GEMMs
  uint64_t alu_active_cycles = 0;   // ALU issue cycles (N with imm, 2N vector)
};

class ComputeUnit : public PipelineUnit {
 public:
  ComputeUnit(sc_core::sc_module_name name, const ComputePorts& ports)
      : PipelineUnit(name, kStageCompute, ports.unit), m_uop(ports.uop), m_acc(ports.acc) {}

  const ComputeStats& compute_stats() const { return m_cstats; }
  void clear_compute_stats() { m_cstats = ComputeStats{}; }

 protected:
  uint64_t execute(uint32_t index, const Insn& insn, uint64_t s) override;

 private:
  ReadPort m_uop, m_acc;
  ComputeStats m_cstats;
};

}  // namespace vta::cycle
