// RtlBackend: the `rtl` backend. The synthesizable Verilog core of hw/rtl, compiled by
// Verilator (one model per config listed in the CMake option VTA_RTL_CONFIGS), clocked cycle
// by cycle from an SC_THREAD of a SystemC top that also holds the cycle model's memory model
// (MEMORY_MODEL: "fixed" DramTarget, "dram" DramMemory): same memory timing, same DRAM. The values
// must equal fsim's bit for bit and the cycle counts the cycle backend's (sim/README.md).
// A config with CORES (docs/multicore.md) gets one Verilated core per core, clocked in lock step
// by the same thread, around the cycle model's interconnect and one memory model.
// A ContractBackend: loading, fetch-time checks, the deadlock wording and the counter names
// come from the timing contract (vta/sim/contract); this backend only executes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vta/sim/contract/contract_backend.h"

namespace vta {

class RtlBackend : public ContractBackend {
 public:
  // Throws Error "no RTL model built for config ..." when this binary has no model of `cfg`.
  RtlBackend(const HwConfig& cfg, Dram& dram);
  ~RtlBackend() override;

  const char* name() const override { return "rtl"; }
  // VCD of every RTL signal (core 0's in a system) in cycles [start, end), counted over all runs
  // of this backend
  // (needs the CMake option VTA_RTL_TRACE). VCD time 2c is cycle c with the clock low, 2c + 1
  // the same cycle after its rising edge. The file is complete when the backend is destroyed.
  void enable_vcd(const std::string& path, uint64_t start, uint64_t end) override;

  // The watchdog: a run in which the core finishes no instruction, moves no data and issues no
  // GEMM/ALU micro-op for this many cycles (before FINISH) is a hang and ends in a ProgramError
  // naming each unit's state and the progress so far; 0 turns it off. The cycle model needs
  // none: it is event driven, so a core that cannot move is a deadlock it reports at once.
  // The default is far above any memory latency (hw/README.md).
  static constexpr uint64_t kDefaultWatchdogCycles = uint64_t{1} << 20;
  void set_watchdog_cycles(uint64_t cycles);

  // Names of the configs with a model in this binary, e.g. {"pynq", "small"}.
  static std::vector<std::string> built_configs();
  // The config whose model serves this backend.
  const std::string& model_config() const;

 protected:
  RunOutcome execute(const LoadedProgram& program, uint64_t wait_cycles) override;
  std::vector<RunOutcome> execute_cores(const std::vector<const LoadedProgram*>& programs,
                                        uint64_t wait_cycles, uint64_t& makespan) override;

 private:
  std::vector<RunOutcome> run_system(const std::vector<const LoadedProgram*>& programs,
                                     uint64_t wait_cycles);
  RunOutcome core_outcome(int k, const LoadedProgram& program);
  void publish_system_counters(const std::vector<RunOutcome>& outs,
                               const std::vector<const LoadedProgram*>& programs);

  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace vta
