// The words every backend uses when a run cannot finish: a deadlock (no unit can progress and
// FINISH has not executed) or a stream that ends without FINISH. Backends describe what each
// unit was doing; the wording lives here only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vta/sim/contract/dependency_rule.h"
#include "vta/sim/isa.h"

namespace vta {

// What one of the load, compute and store units was doing when the run got stuck.
struct UnitReport {
  enum Kind {
    kNoneLeft,   // no instructions left for it
    kBlocked,    // its head instruction waits on a token or on room in a token queue
    kExecuting,  // inside an instruction
    kWaiting,    // its head instruction waits for something the contract does not name
    kIdle,       // nothing visible in its instruction queue yet
  };
  Kind kind = kNoneLeft;
  uint32_t insn = 0;    // the head (or executing) instruction's index in the stream
  uint32_t opcode = 0;  // its opcode
  StartBlock block;     // kBlocked: the flag and queue
};

// Index = Stage - 1 (load, compute, store).
using UnitReports = std::array<UnitReport, 3>;

// True if no unit has an instruction left (the stream ended without FINISH).
bool no_instructions_left(const UnitReports& units);

// "deadlock: no unit can progress and FINISH has not executed: <unit>; <unit>; <unit>;
// [<detail>; ]tokens l2g=.. g2l=.. s2g=.. g2s=.." with `capacity` tokens per queue.
std::string deadlock_message(const UnitReports& units, const TokenCounts& tokens, uint64_t capacity,
                             const std::string& detail);

// "watchdog: no progress for N cycles (...) before FINISH, at cycle C: <unit>; <unit>; <unit>;
// <detail>": a core that stays busy without finishing an instruction, moving data or issuing a
// micro-op (a hang the deadlock watch cannot see, since a unit is still inside an instruction).
std::string no_progress_message(const UnitReports& units, uint64_t quiet_cycles, uint64_t cycle,
                                const std::string& detail);

// "fetch unit: no FINISH executed within insn_count = N instructions[ (<detail>)]".
std::string no_finish_message(uint64_t insn_count, const std::string& detail);

// Per unit (index = Stage - 1): how many of its instructions, in its order, had started when
// FINISH retired (the FINISH included). One still in flight then is dropped, as the contract
// says (sim/README.md section 1); one that never started is an error.
using UnitsCompleted = std::array<uint64_t, 3>;
// "" if every instruction of `per_stage` started, else "FINISH (instruction F) retired with N
// instruction(s) left unexecuted: i (OPCODE), ..." (the first 8 named).
std::string unexecuted_at_finish_message(const std::array<std::vector<uint32_t>, 4>& per_stage,
                                         const std::vector<Insn>& insns,
                                         const UnitsCompleted& completed);
// "tokens l2g=.. g2l=.. s2g=.. g2s=..".
std::string tokens_text(const TokenCounts& tokens);

}  // namespace vta
