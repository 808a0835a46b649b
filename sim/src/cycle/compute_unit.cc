#include "compute_unit.h"

#include "vta/sim/contract/timing_constants.h"

namespace vta::cycle {

uint64_t ComputeUnit::execute(uint32_t index, const Insn& i, uint64_t s) {
  switch (i.opcode) {
    case kOpLoad:
      return execute_load(i.memory_type == kMemUop ? m_uop : m_acc, index, i, s);
    case kOpGemm: {
      m_ports.core.exec_gemm(index, i);
      const uint64_t n = static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
      if (n == 0) {
        return s;
      }
      if (!i.reset_reg) {
        m_cstats.gemm_active_cycles += n;
      }
      return s + n + kComputePipelineDepth;
    }
    case kOpAlu: {
      m_ports.core.exec_alu(index, i);
      const uint64_t n = static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
      if (n == 0) {
        return s;
      }
      // Vector operands take two reads of the single acc read port per iteration.
      const uint64_t ii = i.use_imm ? 1 : 2;
      m_cstats.alu_active_cycles += ii * n;
      return s + ii * (n - 1) + 1 + kComputePipelineDepth;
    }
    default:  // FINISH
      return s;
  }
}

}  // namespace vta::cycle
