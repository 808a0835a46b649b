// ContractBackend: Backend::run as a template method over the contract, so fsim, cycle and rtl
// implement only execution. run() loads and checks the program (program_loader.h), lets the
// backend execute it, maps the outcome (finished, timeout, stuck) to the contract's messages
// (deadlock_report.h) and publishes the timed counters (counter_schema.h). Errors a backend
// finds while executing (an illegal access) are ProgramErrors it throws itself.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vta/sim/backend.h"
#include "vta/sim/contract/counter_schema.h"
#include "vta/sim/contract/deadlock_report.h"
#include "vta/sim/contract/program_loader.h"
#include "vta/sim/isa.h"

namespace vta {

// How one execution ended.
struct RunOutcome {
  enum Kind {
    kFinished,  // FINISH executed
    kTimeout,   // wait_cycles elapsed first (timed backends)
    kStuck,     // no unit can progress: a deadlock, or no FINISH in the stream
  };
  Kind kind = kFinished;
  uint64_t cycles = 0;                    // timed backends: cycles of the run
  std::optional<TimedCounters> counters;  // timed backends: what the run measured
  // kFinished: the instructions each unit had started when FINISH retired; any left is an
  // error (a FINISH not ordered after the rest of the program).
  UnitsCompleted completed{};
  // kStuck: what each unit was doing, the tokens queued, and backend state for the report.
  UnitReports units{};
  TokenCounts tokens{};
  std::string detail;
};

class ContractBackend : public Backend {
 public:
  ContractBackend(const HwConfig& cfg, Dram& dram);

  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) final;
  // Loads and checks every core's program with that core's config, executes them together
  // (execute_cores) and checks each outcome as run() does, the messages prefixed "core K: ".
  RunStatus run_cores(const std::vector<CoreProgram>& programs, uint64_t wait_cycles) final;

 protected:
  // Executes a loaded, statically checked program until FINISH, a timeout (0 = no limit) or
  // until it is stuck. Adds the upstream counters and instruction counts to m_stats itself.
  virtual RunOutcome execute(const LoadedProgram& program, uint64_t wait_cycles) = 0;
  // Executes programs[k] (null: idle) on core k, together; returns each core's outcome (idle
  // cores: kFinished with nothing done). The default runs core 0 alone and throws Error if
  // another core has a program. `makespan` receives the system run's cycles (timed backends).
  virtual std::vector<RunOutcome> execute_cores(const std::vector<const LoadedProgram*>& programs,
                                                uint64_t wait_cycles, uint64_t& makespan);

  const IsaCodec& codec() const { return m_codec; }

 private:
  // Maps one core's outcome to the contract's errors and publishes its counters.
  void finish_core(int core, const LoadedProgram& program, const RunOutcome& out);

  IsaCodec m_codec;
  std::vector<std::unique_ptr<IsaCodec>> m_core_codecs;  // cores 1..N-1
};

}  // namespace vta
