// CycleBackend: the cycle-accurate model of the VTA core ("cycle"), in SystemC 2.3.4. Each unit
// (fetch, load, compute, store) is an sc_module that touches only the ports it is built with;
// they talk through bounded instruction queues, the four dependency-token queues and one
// arbitrated memory interface in front of a memory model reached through a TLM-2.0 socket and
// chosen by name (memory_target.h). The timing is the contract of sim/README.md (shared with
// the rtl backend); values and errors are those of fsim, bit for bit.
//
// It runs on the contract layer (ContractBackend): the program is loaded and checked, the
// deadlock and missing-FINISH messages are worded and the named counters published there;
// this backend only executes.
//
// Units do not tick every cycle: each computes an instruction's timeline from the contract
// formulas and waits for the whole span, and the memory interface schedules whole bursts.
// Every backend object has a core in a private SystemC kernel, so a process may create many, one
// after the other or side by side, and each serves any number of run() calls. A destroyed
// backend parks its core (SystemC cannot free it) and the next backend of the same hardware
// reuses it, as new (cycle_backend.cc). SystemC's current kernel is process-wide state: the
// backends take turns inside SystemC under one lock (sim_context.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "vta/sim/contract/contract_backend.h"

namespace vta {

namespace cycle {
struct MemoryPort;  // vta/sim/cycle/memory_target.h
}

class CycleBackend : public ContractBackend {
 public:
  // Replaces the DRAM model behind the memory port. Called once, inside this backend's SystemC
  // kernel, while the core is built: create a TLM-2.0 target module (it lives as long as the
  // kernel) and bind port.socket to it.
  using MemoryBinder = std::function<void(cycle::MemoryPort& port)>;

  // The memory model the config names (MEMORY_MODEL; "fixed", cycle::DramTarget, by default).
  CycleBackend(const HwConfig& cfg, Dram& dram);
  // The memory model registered under `memory_model` (cycle::MemoryModelRegistry); throws
  // Error listing the registered names if there is none.
  CycleBackend(const HwConfig& cfg, Dram& dram, const std::string& memory_model);
  CycleBackend(const HwConfig& cfg, Dram& dram, const MemoryBinder& bind_memory);
  ~CycleBackend() override;

  const char* name() const override { return "cycle"; }
  void enable_trace(const std::string& path) override;
  void set_trace_window(uint64_t start, uint64_t end) override;
  void begin_trace_slice(const std::string& track, const std::string& name) override;
  void end_trace_slice(const std::string& track, const Stats& counters) override;
  void add_trace_slice(const std::string& track, const std::string& name, uint64_t cycles,
                       const std::map<std::string, uint64_t>& args) override;
  void enable_vcd(const std::string& path, uint64_t start, uint64_t end) override;

  // The name of the memory model ("" when a MemoryBinder supplied it).
  const std::string& memory_model() const;
  // Cycles of the last run (timeout: wait_cycles).
  uint64_t last_run_cycles() const;

  // Architectural state, for tests (index = SRAM element, lane = batch * BLOCK_OUT + i).
  int32_t acc_lane(uint32_t index, uint32_t lane) const;
  int32_t out_lane(uint32_t index, uint32_t lane) const;

 protected:
  // Runs `program` on the core until FINISH, `wait_cycles` (0 = no limit) or until no unit can
  // progress; rethrows the ProgramError of an instruction that failed its dynamic checks.
  RunOutcome execute(const LoadedProgram& program, uint64_t wait_cycles) override;
  // CORES: the programs run together on the cores around the interconnect and the one memory
  // model (docs/multicore.md).
  std::vector<RunOutcome> execute_cores(const std::vector<const LoadedProgram*>& programs,
                                        uint64_t wait_cycles, uint64_t& makespan) override;

 private:
  void mark_timed();

  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace vta
