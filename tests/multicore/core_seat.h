// One core of a system backend as the ISA-suite cases see a backend, so that two cases run
// together on two cores of one system (test_multicore_system.cc, test_multicore_rtl.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "isa_programs.h"
#include "vta/sim/backend.h"

namespace vta::multicoretest {

// Stands for core `core` of `system` inside an ISA-suite case: the case builds its program in
// the system's DRAM and calls run(), which here starts the partner case (whose run() starts both
// programs together, or each alone), and checks its outputs afterwards as it does alone.
class CoreSeat : public Backend {
 public:
  CoreSeat(Backend& system, int core)
      : Backend(system.config(), system.dram()), m_sys(system), m_core(core) {}
  const char* name() const override { return "core-seat"; }

  CoreSeat* partner = nullptr;
  const testprog::IsaTestCase* partner_case = nullptr;
  bool together = true;  // false: each run() runs this core's program alone
  std::string partner_result;
  std::vector<uint64_t> cycles;  // per run: this core's cycles

  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) override {
    m_program = CoreProgram{insn_phys, insn_count};
    if (partner_case != nullptr) {  // the outer case: let the partner build its program
      const testprog::IsaTestCase* pc = partner_case;
      partner_case = nullptr;
      partner_result = pc->run_and_check(*partner);
      partner->m_program = CoreProgram{};  // its DRAM is freed: later runs are this core's alone
      return RunStatus::kOk;
    }
    std::vector<CoreProgram> progs(2);
    progs[static_cast<size_t>(m_core)] = m_program;
    if (together && partner != nullptr) {
      progs[static_cast<size_t>(partner->m_core)] = partner->m_program;
    }
    m_sys.clear_stats();
    const RunStatus st = m_sys.run_cores(progs, wait_cycles);
    for (CoreSeat* s : {this, partner}) {
      if (s != nullptr) {
        s->record();
      }
    }
    return st;
  }

  // This core's cycles in the last run (0 before any).
  uint64_t last_cycles() const { return cycles.empty() ? 0 : cycles.back(); }

 protected:
  // After each run of the system: this core's stats (core_stats(k)) and cycles.
  virtual void record() {
    m_stats = m_sys.core_stats(m_core);
    m_stats.runs = 1;
    const NamedCounter* c = m_sys.stats().find(fmt::format("core{}.cycles", m_core));
    cycles.push_back(c != nullptr ? static_cast<uint64_t>(c->value) : m_stats.cycles);
  }

  const Backend& system() const { return m_sys; }
  int core() const { return m_core; }

 private:
  Backend& m_sys;
  int m_core;
  CoreProgram m_program;
};

}  // namespace vta::multicoretest
