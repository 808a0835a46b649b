#include "vta/sim/contract/contract_backend.h"

#include "vta/sim/error.h"

namespace vta {

ContractBackend::ContractBackend(const HwConfig& cfg, Dram& dram)
    : Backend(cfg, dram), m_codec(cfg) {}

RunStatus ContractBackend::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  ++m_stats.runs;
  const LoadedProgram program = load_program(m_codec, m_dram, insn_phys, insn_count);
  const RunOutcome out = execute(program, wait_cycles);
  if (out.kind == RunOutcome::kStuck) {
    if (no_instructions_left(out.units)) {
      const std::string detail =
          out.detail.empty() ? "" : out.detail + "; " + tokens_text(out.tokens);
      throw ProgramError(no_finish_message(insn_count, detail));
    }
    throw ProgramError(deadlock_message(out.units, out.tokens,
                                        static_cast<uint64_t>(m_cfg.dep_queue_depth), out.detail));
  }
  if (out.kind == RunOutcome::kFinished) {
    const std::string left =
        unexecuted_at_finish_message(program.per_stage, program.insns, out.completed);
    if (!left.empty()) {
      throw ProgramError(left);
    }
  }
  if (m_stats.timed) {
    m_stats.cycles += out.cycles;
  }
  if (out.counters) {
    publish_counters(m_stats, *out.counters);
  }
  return out.kind == RunOutcome::kTimeout ? RunStatus::kTimeout : RunStatus::kOk;
}

}  // namespace vta
