#include "core_device.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

void SystemRun::begin() {
  m_collecting = true;
  m_programs.assign(static_cast<size_t>(m_system.cores()), CoreProgram{});
}

void SystemRun::keep(int core, uint32_t insn_phys, uint32_t insn_count) {
  CoreProgram& p = m_programs.at(static_cast<size_t>(core));
  if (p.insn_count != 0) {
    throw Error(fmt::format(
        "core {} already has a program for this system run (one per core; VTASystemRun first)",
        core));
  }
  p = CoreProgram{insn_phys, insn_count};
}

bool SystemRun::run(uint64_t wait_cycles) {
  if (!m_collecting) {
    throw Error("no system run was begun (VTASystemBegin first)");
  }
  m_collecting = false;
  const std::vector<CoreProgram> programs = std::move(m_programs);
  m_programs.clear();
  return m_system.run_cores(programs, wait_cycles) == RunStatus::kTimeout;
}

CoreDevice::CoreDevice(Backend& system, int core, SystemRun& batch)
    : Backend(system.config().core_config(core), system.dram()),
      m_system(system),
      m_core(core),
      m_batch(batch) {}

RunStatus CoreDevice::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  if (m_batch.collecting()) {
    m_batch.keep(m_core, insn_phys, insn_count);
    return RunStatus::kOk;
  }
  if (m_batch.replicate && m_core == 0) {  // the same stream on every core, started together
    return m_system.run_cores(
        std::vector<CoreProgram>(static_cast<size_t>(m_system.cores()), {insn_phys, insn_count}),
        wait_cycles);
  }
  std::vector<CoreProgram> programs(static_cast<size_t>(m_core) + 1);
  programs.back() = CoreProgram{insn_phys, insn_count};
  return m_system.run_cores(programs, wait_cycles);
}

}  // namespace vta
