// CycleBackend: the cycle-accurate model of the VTA core ("cycle"), in SystemC 2.3.4. Each unit
// (fetch, load, compute, store) is an sc_module; they talk through bounded instruction queues,
// the four dependency-token queues and one arbitrated memory interface in front of a DRAM
// model reached through a TLM-2.0 socket. The timing is the contract of sim/README.md (shared
// with the rtl backend); values and errors are those of fsim, bit for bit.
//
// Units do not tick every cycle: each computes an instruction's timeline from the contract
// formulas and waits for the whole span, and the memory interface schedules whole bursts.
// Every backend object owns a private SystemC kernel, so a process may create many, one after
// the other or side by side, and each serves any number of run() calls. SystemC's current
// kernel is process-wide state: use cycle backends from one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "vta/sim/backend.h"

namespace vta {

namespace cycle {
struct MemoryPort;  // vta/sim/cycle/dram_target.h
}

class CycleBackend : public Backend {
 public:
  // Replaces the DRAM model behind the memory port. Called once, inside this backend's SystemC
  // kernel, while the core is built: create a TLM-2.0 target module (it lives as long as the
  // kernel) and bind port.socket to it. The default is cycle::DramTarget (DramTiming).
  using MemoryBinder = std::function<void(cycle::MemoryPort& port)>;

  CycleBackend(const HwConfig& cfg, Dram& dram);
  CycleBackend(const HwConfig& cfg, Dram& dram, const MemoryBinder& bind_memory);
  ~CycleBackend() override;

  const char* name() const override { return "cycle"; }
  // Runs until FINISH; returns kTimeout if it needs more than `wait_cycles` cycles (0 = no
  // limit). Throws ProgramError for an illegal program, a deadlock (naming every unit's state
  // and every queue's occupancy) or a missing FINISH. Stats: upstream counters, cycles and the
  // named counters of sim/README.md section 6.
  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) override;
  void enable_trace(const std::string& path) override;
  void enable_vcd(const std::string& path, uint64_t start, uint64_t end) override;

  // Cycles of the last run (timeout: wait_cycles).
  uint64_t last_run_cycles() const;

  // Architectural state, for tests (index = SRAM element, lane = batch * BLOCK_OUT + i).
  int32_t acc_lane(uint32_t index, uint32_t lane) const;
  int8_t out_lane(uint32_t index, uint32_t lane) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace vta
