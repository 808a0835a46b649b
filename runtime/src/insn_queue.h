// InsnQueue: the host-side instruction stream of one VTA program, with upstream's dependency-
// flag insertion (vta-reference.md 4.3). Dependency pops are kept pending per stage and folded
// into the next instruction created on that stage; pushes are set on the last instruction if it
// belongs to the pushing stage, otherwise carried by a NOP. The queue also checks a finished
// stream: it replays the three in-order stages against the four token queues (l2g, g2l, s2g,
// g2s) and reports a deadlock (a pop that no push can satisfy) before anything runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vta/sim/isa.h"
#include "vta/sim/token_queues.h"

namespace vta {

struct HwConfig;

const char* token_queue_name(int q);  // "l2g (load->compute)", ...
using TokenCounts = std::array<uint64_t, 4>;

class InsnQueue {
 public:
  explicit InsnQueue(const HwConfig& cfg);

  // Appends a real instruction; the pending pops of its stage become its pop flags. Throws
  // ProgramError naming the field if a value does not fit its instruction field.
  void push(Insn insn);
  // Upstream DepPush / DepPop / CommitPendingPop (stages 1 = load, 2 = compute, 3 = store).
  void dep_push(int from, int to);
  void dep_pop(int from, int to);
  void commit_pending_pop(int stage);
  bool pending_pop() const;
  // Appends a NOP on `stage` carrying the given flags (load: LOAD INP, compute: LOAD UOP,
  // store: STORE, all with x_size 0).
  void push_noop(int stage, bool push_prev, bool push_next, bool pop_prev, bool pop_next);

  // FORCE_SERIAL: rewrites every flag so that each change of stage between consecutive
  // instructions is one push/pop pair (load<->store changes go through a compute NOP), and
  // makes the compute stage wait for the last instruction. Pending pops are dropped.
  void rewrite_force_serial();

  // Replays the stream; throws ProgramError on a deadlock (naming the instruction, its stage
  // and the token queue it waits on, empty or full at DEP_QUEUE_DEPTH). Returns the tokens left
  // in each queue at the end.
  TokenCounts check_tokens() const;

  size_t size() const { return m_insns.size(); }
  bool empty() const { return m_insns.empty(); }
  const std::vector<InsnWords>& words() const { return m_insns; }
  Insn decode(size_t i) const { return m_codec.decode(m_insns[i]); }
  std::vector<Insn> decoded() const;
  const IsaCodec& codec() const { return m_codec; }
  // Drops every instruction and pending pop.
  void clear();

  // Stage as upstream's GetPipelineStage sees it for push folding: LOAD with x_size 0 belongs to
  // no stage; STORE (even a NOP) to the store stage.
  static int fold_stage(const InsnWords& w);
  // Stage that executes the instruction (fetch routing; NOPs included).
  static int exec_stage(const InsnWords& w);

 private:
  void append(Insn& insn, int stage);

  IsaCodec m_codec;
  uint64_t m_token_capacity;  // DEP_QUEUE_DEPTH (unbounded if the config gives 0)
  std::vector<InsnWords> m_insns;
  std::array<bool, 4> m_pending_pop_prev{};  // indexed by stage 1..3
  std::array<bool, 4> m_pending_pop_next{};
};

}  // namespace vta
