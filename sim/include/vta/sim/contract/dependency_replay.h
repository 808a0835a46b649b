// The untimed replay of a program's dependency tokens: the three in-order stages run as far as
// the start rule (dependency_rule.h) lets them, repeatedly, until none can move. Used by the
// runtime's stream check (a pop no push can ever satisfy is reported before the program runs)
// and by the compiler's verifier (which orders instructions of different stages through the
// tokens they exchange). Tokens only accumulate while every stage runs as far as it can, so the
// replay reaches the same end state whatever the interleaving.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "vta/sim/contract/dependency_rule.h"
#include "vta/sim/isa.h"

namespace vta {

struct DependencyReplay {
  // The head instruction of a stage that can never start, and why.
  struct Stuck {
    uint32_t insn = 0;
    StartBlock block;
  };

  std::vector<uint32_t> order;  // instructions in the order they started
  // Per instruction: the instruction whose push produced the token it took by pop_prev (0) and
  // pop_next (1), -1 where it popped nothing (or never started). Queues are FIFO.
  std::vector<std::array<int64_t, 2>> popped_from;
  TokenCounts left{};                           // tokens still queued at the end
  std::array<std::optional<Stuck>, 4> stuck{};  // per Stage (1..3)

  bool deadlocked() const { return stuck[1] || stuck[2] || stuck[3]; }
};

// Replays `insns` (instructions of no stage are skipped) with `capacity` tokens per queue
// (DEP_QUEUE_DEPTH; pass UINT64_MAX for unbounded queues).
DependencyReplay replay_dependencies(const std::vector<Insn>& insns, uint64_t capacity);

}  // namespace vta
