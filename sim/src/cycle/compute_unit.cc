#include "compute_unit.h"

#include "vta/sim/contract/timing_constants.h"

namespace vta::cycle {

uint64_t ComputeUnit::execute(uint32_t index, const Insn& i, uint64_t s) {
  switch (i.opcode) {
    case kOpLoad:
      return execute_load(i.memory_type == kMemUop ? m_uop : m_acc, index, i, s);
    case kOpGemm: {
      const uint64_t n = static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
      // A loop that cannot retire within the run's budget is timed but not computed: the run
      // times out first, and 2e12 micro-ops of arithmetic would keep the host busy for hours.
      if (n == 0 || !m_ports.run.past_budget(s + n + kComputePipelineDepth)) {
        m_ports.core.exec_gemm(index, i);
      }
      if (n == 0) {
        return s;
      }
      if (!i.reset_reg) {
        m_cstats.gemm_active_cycles += n;
      }
      return s + n + kComputePipelineDepth;
    }
    case kOpAlu: {
      const uint64_t n = static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
      // Vector operands take two reads of the single acc read port per iteration.
      const uint64_t ii = i.use_imm ? 1 : 2;
      if (n == 0 || !m_ports.run.past_budget(s + ii * (n - 1) + 1 + kComputePipelineDepth)) {
        m_ports.core.exec_alu(index, i);
      }
      if (n == 0) {
        return s;
      }
      m_cstats.alu_active_cycles += ii * n;
      return s + ii * (n - 1) + 1 + kComputePipelineDepth;
    }
    default:  // FINISH
      return s;
  }
}

}  // namespace vta::cycle
