#include "insn_queue.h"

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/insn_check.h"

namespace vta {

namespace {

// Bit positions shared by every instruction layout (vta-reference.md 2.1, 2.2); the memory
// instruction fields used here have config-independent positions.
constexpr uint64_t kOpcodeMask = 0x7;
constexpr int kPopPrevBit = 3;
constexpr int kPopNextBit = 4;
constexpr int kPushPrevBit = 5;
constexpr int kPushNextBit = 6;
constexpr uint64_t kFlagMask = 0xFull << kPopPrevBit;
constexpr int kMemTypeLo = 7;      // memory_type [9:7]
constexpr int kXSizeLoWord1 = 16;  // x_size [95:80] = word 1 bits [31:16]

bool bit(const InsnWords& w, int b) {
  return (w[0] >> b) & 1;
}
void set_bit(InsnWords& w, int b) {
  w[0] |= 1ull << b;
}
uint32_t opcode_of(const InsnWords& w) {
  return static_cast<uint32_t>(w[0] & kOpcodeMask);
}
uint32_t mem_type_of(const InsnWords& w) {
  return static_cast<uint32_t>((w[0] >> kMemTypeLo) & 7);
}
uint32_t x_size_of(const InsnWords& w) {
  return static_cast<uint32_t>((w[1] >> kXSizeLoWord1) & 0xFFFF);
}

// Token queues an instruction of stage `s` pops and pushes, -1 where its flag is clear.
struct TokenUse {
  int pop_prev, pop_next, push_prev, push_next;
};
TokenUse token_use(const InsnWords& w, int s) {
  return {bit(w, kPopPrevBit) ? kPopPrev[s] : -1, bit(w, kPopNextBit) ? kPopNext[s] : -1,
          bit(w, kPushPrevBit) ? kPushPrev[s] : -1, bit(w, kPushNextBit) ? kPushNext[s] : -1};
}

std::string describe(const InsnWords& w) {
  const uint32_t op = opcode_of(w);
  if (op == kOpLoad || op == kOpStore) {
    return fmt::format("{} {}{}", opcode_name(op), mem_type_name(mem_type_of(w)),
                       x_size_of(w) == 0 ? " NOP" : "");
  }
  return opcode_name(op);
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

int InsnQueue::fold_stage(const InsnWords& w) {
  if (opcode_of(w) == kOpLoad && x_size_of(w) == 0) {
    return kStageNone;
  }
  return exec_stage(w);
}

int InsnQueue::exec_stage(const InsnWords& w) {
  Insn head;  // the stage depends only on the opcode and the memory type
  head.opcode = opcode_of(w);
  head.memory_type = mem_type_of(w);
  return head.stage();
}

void InsnQueue::append(Insn& insn, int stage) {
  insn.pop_prev_dep = insn.pop_prev_dep || m_pending_pop_prev[stage];
  insn.pop_next_dep = insn.pop_next_dep || m_pending_pop_next[stage];
  InsnWords w = m_codec.encode(insn);  // validates every field before anything changes
  m_pending_pop_prev[stage] = false;
  m_pending_pop_next[stage] = false;
  m_insns.push_back(w);
}

void InsnQueue::push(Insn insn) {
  const int stage = insn.stage();
  if (stage == kStageNone) {
    throw ProgramError(fmt::format("instruction with unknown opcode {}", insn.opcode));
  }
  append(insn, stage);
}

void InsnQueue::push_noop(int stage, bool push_prev, bool push_next, bool pop_prev, bool pop_next) {
  Insn nop;
  nop.opcode = stage == kStageStore ? kOpStore : kOpLoad;
  nop.memory_type = stage == kStageLoad ? kMemInp : kMemUop;
  nop.push_prev_dep = push_prev;
  nop.push_next_dep = push_next;
  nop.pop_prev_dep = pop_prev;
  nop.pop_next_dep = pop_next;
  m_insns.push_back(m_codec.encode(nop));
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
    InsnWords& last = m_insns.back();
    if (fold_stage(last) == from) {
      const int b = from < to ? kPushNextBit : kPushPrevBit;
      if (!bit(last, b)) {
        set_bit(last, b);
        return;
      }
    }
  }
  push_noop(from, from > to, from < to, false, false);
}

void InsnQueue::rewrite_force_serial() {
  const auto set_push = [](InsnWords& w, int from, int to) {
    set_bit(w, from < to ? kPushNextBit : kPushPrevBit);
  };
  const auto set_pop = [](InsnWords& w, int from, int to) {
    set_bit(w, from < to ? kPopPrevBit : kPopNextBit);
  };
  Insn nop;
  nop.opcode = kOpLoad;
  nop.memory_type = kMemUop;
  const InsnWords compute_nop = m_codec.encode(nop);

  std::vector<InsnWords> out;
  out.reserve(m_insns.size() + 2);
  int last = kStageNone;
  for (InsnWords w : m_insns) {
    w[0] &= ~kFlagMask;
    const int s = exec_stage(w);
    if (!out.empty() && s != last) {
      if (last != kStageCompute && s != kStageCompute) {
        // No queue links load and store: hand over through a compute NOP.
        InsnWords n = compute_nop;
        set_push(out.back(), last, kStageCompute);
        set_pop(n, last, kStageCompute);
        out.push_back(n);
        last = kStageCompute;
      }
      set_push(out.back(), last, s);
      set_pop(w, last, s);
    }
    out.push_back(w);
    last = s;
  }
  if (!out.empty() && last != kStageCompute) {
    // FINISH (compute) must not run before the last load or store.
    InsnWords n = compute_nop;
    set_push(out.back(), last, kStageCompute);
    set_pop(n, last, kStageCompute);
    out.push_back(n);
  }
  m_insns = std::move(out);
  m_pending_pop_prev.fill(false);
  m_pending_pop_next.fill(false);
}

TokenCounts InsnQueue::check_tokens() const {
  std::array<std::vector<uint32_t>, 4> per_stage;
  for (uint32_t i = 0; i < m_insns.size(); ++i) {
    const InsnWords& w = m_insns[i];
    const int s = exec_stage(w);
    if (s == kStageNone) {
      throw ProgramError(fmt::format("instruction {}: unknown opcode {}", i, opcode_of(w)));
    }
    const std::pair<int, const char*> flags[] = {{kPopPrev[s], "pop_prev_dep"},
                                                 {kPopNext[s], "pop_next_dep"},
                                                 {kPushPrev[s], "push_prev_dep"},
                                                 {kPushNext[s], "push_next_dep"}};
    for (int f = 0; f < 4; ++f) {
      if (flags[f].first < 0 && bit(w, kPopPrevBit + f)) {
        throw ProgramError(
            fmt::format("instruction {} ({}): {} is set but the {} stage has no "
                        "such dependency queue",
                        i, describe(w), flags[f].second, stage_unit_name(static_cast<Stage>(s))));
      }
    }
    per_stage[s].push_back(i);
  }
  // Tokens only accumulate, so running every stage as far as it can reaches the unique fixpoint.
  TokenCounts tokens{};
  std::array<size_t, 4> pos{};
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = kStageLoad; s <= kStageStore; ++s) {
      while (pos[s] < per_stage[s].size()) {
        const auto [pp, pn, qp, qn] = token_use(m_insns[per_stage[s][pos[s]]], s);
        if ((pp >= 0 && tokens[pp] == 0) || (pn >= 0 && tokens[pn] == 0) ||
            (qp >= 0 && tokens[qp] >= m_token_capacity) ||
            (qn >= 0 && tokens[qn] >= m_token_capacity)) {
          break;
        }
        if (pp >= 0)
          --tokens[pp];
        if (pn >= 0)
          --tokens[pn];
        if (qp >= 0)
          ++tokens[qp];
        if (qn >= 0)
          ++tokens[qn];
        ++pos[s];
        progress = true;
      }
    }
  }
  std::string stuck;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (pos[s] < per_stage[s].size()) {
      const uint32_t i = per_stage[s][pos[s]];
      const InsnWords& w = m_insns[i];
      const auto [pp, pn, qp, qn] = token_use(w, s);
      std::string why;
      if (pp >= 0 && tokens[pp] == 0) {
        why = fmt::format("for a token on {}", token_queue_name(pp));
      } else if (pn >= 0 && tokens[pn] == 0) {
        why = fmt::format("for a token on {}", token_queue_name(pn));
      } else {
        why = fmt::format("to push on {}, which is full ({} tokens, DEP_QUEUE_DEPTH)",
                          token_queue_name(qp >= 0 && tokens[qp] >= m_token_capacity ? qp : qn),
                          m_token_capacity);
      }
      stuck += fmt::format("{}the {} stage waits forever at instruction {} ({}) {}",
                           stuck.empty() ? "" : "; ", stage_unit_name(static_cast<Stage>(s)), i,
                           describe(w), why);
    }
  }
  if (!stuck.empty()) {
    throw ProgramError("dependency deadlock (a pop without a matching push): " + stuck);
  }
  return tokens;
}

std::vector<Insn> InsnQueue::decoded() const {
  std::vector<Insn> out;
  out.reserve(m_insns.size());
  for (const auto& w : m_insns) {
    out.push_back(m_codec.decode(w));
  }
  return out;
}

void InsnQueue::clear() {
  m_insns.clear();
  m_pending_pop_prev.fill(false);
  m_pending_pop_next.fill(false);
}

}  // namespace vta
