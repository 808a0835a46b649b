// ContractBackend: Backend::run as a template method over the contract, so fsim, cycle and rtl
// implement only execution. run() loads and checks the program (program_loader.h), lets the
// backend execute it, maps the outcome (finished, timeout, stuck) to the contract's messages
// (deadlock_report.h) and publishes the timed counters (counter_schema.h). Errors a backend
// finds while executing (an illegal access) are ProgramErrors it throws itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

 protected:
  // Executes a loaded, statically checked program until FINISH, a timeout (0 = no limit) or
  // until it is stuck. Adds the upstream counters and instruction counts to m_stats itself.
  virtual RunOutcome execute(const LoadedProgram& program, uint64_t wait_cycles) = 0;

  const IsaCodec& codec() const { return m_codec; }

 private:
  IsaCodec m_codec;
};

}  // namespace vta
