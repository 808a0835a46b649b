#include "insn_queue.h"

#include <fmt/format.h>

#include "vta/sim/contract/dependency_replay.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/insn_check.h"

namespace vta {

namespace {

// The flag a stage sets to push to / pop from a neighbouring stage (`from` and `to` are stages;
// a lower stage is the "prev" side of a higher one).
bool& push_flag(Insn& insn, int from, int to) {
  return from < to ? insn.push_next_dep : insn.push_prev_dep;
}
bool& pop_flag(Insn& insn, int from, int to) {
  return from < to ? insn.pop_prev_dep : insn.pop_next_dep;
}

// The NOP of a stage (load: LOAD INP, compute: LOAD UOP, store: STORE UOP; x_size 0).
Insn noop_insn(int stage) {
  Insn nop;
  nop.opcode = stage == kStageStore ? kOpStore : kOpLoad;
  nop.memory_type = stage == kStageLoad ? kMemInp : kMemUop;
  return nop;
}

std::string describe(const Insn& in) {
  if (in.opcode == kOpLoad || in.opcode == kOpStore) {
    return fmt::format("{} {}{}", opcode_name(in.opcode), mem_type_name(in.memory_type),
                       in.x_size == 0 ? " NOP" : "");
  }
  return opcode_name(in.opcode);
}

// Throws ProgramError for an unknown opcode or a flag naming a queue the stage does not have
// (the replay would ignore such a flag; the hardware would not).
void check_stage_flags(const std::vector<Insn>& insns) {
  for (uint32_t i = 0; i < insns.size(); ++i) {
    const Insn& in = insns[i];
    const Stage s = in.stage();
    if (s == kStageNone) {
      throw ProgramError(fmt::format("instruction {}: unknown opcode {}", i, in.opcode));
    }
    const bool flags[] = {in.pop_prev_dep, in.pop_next_dep, in.push_prev_dep, in.push_next_dep};
    for (int f = 0; f < 4; ++f) {
      if (flags[f] && flag_queue(static_cast<DepFlag>(f), s) < 0) {
        throw ProgramError(
            fmt::format("instruction {} ({}): {} is set but the {} stage has no "
                        "such dependency queue",
                        i, describe(in), kDepFlagName[f], stage_unit_name(s)));
      }
    }
  }
}

// Why a stage's head instruction waits forever.
std::string wait_reason(const StartBlock& b, uint64_t capacity) {
  if (!b.on_push()) {
    return fmt::format("for a token on {}", token_queue_name(b.queue));
  }
  return fmt::format("to push on {}, which is full ({} tokens, DEP_QUEUE_DEPTH)",
                     token_queue_name(b.queue), capacity);
}

}  // namespace

const char* token_queue_name(int q) {
  switch (q) {
    case kL2G:
      return "l2g (load->compute)";
    case kG2L:
      return "g2l (compute->load)";
    case kS2G:
      return "s2g (store->compute)";
    case kG2S:
      return "g2s (compute->store)";
    default:
      return "?";
  }
}

InsnQueue::InsnQueue(const HwConfig& cfg)
    : m_codec(cfg),
      m_token_capacity(cfg.dep_queue_depth > 0 ? static_cast<uint64_t>(cfg.dep_queue_depth)
                                               : UINT64_MAX) {}

int InsnQueue::fold_stage(const Insn& insn) {
  if (insn.opcode == kOpLoad && insn.x_size == 0) {
    return kStageNone;
  }
  return insn.stage();
}

void InsnQueue::append(Insn& insn, int stage) {
  insn.pop_prev_dep = insn.pop_prev_dep || m_pending_pop_prev[stage];
  insn.pop_next_dep = insn.pop_next_dep || m_pending_pop_next[stage];
  (void)m_codec.encode(insn);  // validates every field before anything changes
  m_pending_pop_prev[stage] = false;
  m_pending_pop_next[stage] = false;
  m_insns.push_back(insn);
}

void InsnQueue::push(Insn insn) {
  const int stage = insn.stage();
  if (stage == kStageNone) {
    throw ProgramError(fmt::format("instruction with unknown opcode {}", insn.opcode));
  }
  append(insn, stage);
}

void InsnQueue::push_noop(int stage, bool push_prev, bool push_next, bool pop_prev, bool pop_next) {
  Insn nop = noop_insn(stage);
  nop.push_prev_dep = push_prev;
  nop.push_next_dep = push_next;
  nop.pop_prev_dep = pop_prev;
  nop.pop_next_dep = pop_next;
  m_insns.push_back(nop);
}

void InsnQueue::commit_pending_pop(int stage) {
  if (m_pending_pop_prev[stage] || m_pending_pop_next[stage]) {
    push_noop(stage, false, false, m_pending_pop_prev[stage], m_pending_pop_next[stage]);
    m_pending_pop_prev[stage] = false;
    m_pending_pop_next[stage] = false;
  }
}

bool InsnQueue::pending_pop() const {
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (m_pending_pop_prev[s] || m_pending_pop_next[s]) {
      return true;
    }
  }
  return false;
}

void InsnQueue::dep_pop(int from, int to) {
  // The pop executes on stage `to`.
  auto& pending = from < to ? m_pending_pop_prev[to] : m_pending_pop_next[to];
  if (pending) {
    commit_pending_pop(to);
  }
  pending = true;
}

void InsnQueue::dep_push(int from, int to) {
  // The push executes on stage `from`, after its pending pops.
  commit_pending_pop(from);
  if (!m_insns.empty()) {
    Insn& last = m_insns.back();
    if (fold_stage(last) == from) {
      bool& flag = push_flag(last, from, to);
      if (!flag) {
        flag = true;
        return;
      }
    }
  }
  push_noop(from, from > to, from < to, false, false);
}

void InsnQueue::rewrite_force_serial() {
  const Insn compute_nop = noop_insn(kStageCompute);
  std::vector<Insn> out;
  out.reserve(m_insns.size() + 2);
  int last = kStageNone;
  for (Insn in : m_insns) {
    in.pop_prev_dep = in.pop_next_dep = in.push_prev_dep = in.push_next_dep = false;
    const int s = in.stage();
    if (!out.empty() && s != last) {
      if (last != kStageCompute && s != kStageCompute) {
        // No queue links load and store: hand over through a compute NOP.
        Insn n = compute_nop;
        push_flag(out.back(), last, kStageCompute) = true;
        pop_flag(n, last, kStageCompute) = true;
        out.push_back(n);
        last = kStageCompute;
      }
      push_flag(out.back(), last, s) = true;
      pop_flag(in, last, s) = true;
    }
    out.push_back(in);
    last = s;
  }
  if (!out.empty() && last != kStageCompute) {
    // FINISH (compute) must not run before the last load or store.
    Insn n = compute_nop;
    push_flag(out.back(), last, kStageCompute) = true;
    pop_flag(n, last, kStageCompute) = true;
    out.push_back(n);
  }
  m_insns = std::move(out);
  m_pending_pop_prev.fill(false);
  m_pending_pop_next.fill(false);
}

TokenCounts InsnQueue::check_tokens() const {
  check_stage_flags(m_insns);
  const DependencyReplay replay = replay_dependencies(m_insns, m_token_capacity);
  std::string stuck;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (replay.stuck[s]) {
      const uint32_t i = replay.stuck[s]->insn;
      stuck +=
          fmt::format("{}the {} stage waits forever at instruction {} ({}) {}",
                      stuck.empty() ? "" : "; ", stage_unit_name(static_cast<Stage>(s)), i,
                      describe(m_insns[i]), wait_reason(replay.stuck[s]->block, m_token_capacity));
    }
  }
  if (!stuck.empty()) {
    throw ProgramError("dependency deadlock (a pop without a matching push): " + stuck);
  }
  return replay.left;
}

std::vector<InsnWords> InsnQueue::words() const {
  std::vector<InsnWords> out;
  out.reserve(m_insns.size());
  for (const Insn& in : m_insns) {
    out.push_back(m_codec.encode(in));
  }
  return out;
}

void InsnQueue::clear() {
  m_insns.clear();
  m_pending_pop_prev.fill(false);
  m_pending_pop_next.fill(false);
}

}  // namespace vta
