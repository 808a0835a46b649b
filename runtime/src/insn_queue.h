// InsnQueue: the host-side instruction stream of one VTA program, with upstream's dependency-
// flag insertion (vta-reference.md 4.3). Dependency pops are kept pending per stage and folded
// into the next instruction created on that stage; pushes are set on the last instruction if it
// belongs to the pushing stage, otherwise carried by a NOP. The queue also checks a finished
// stream: it replays the three in-order stages against the four token queues (l2g, g2l, s2g,
// g2s) and reports a deadlock (a pop that no push can satisfy) before anything runs.
//
// The stream is kept decoded (vta::Insn), so the flag edits above are plain field updates; it is
// encoded once, by words(), when the program is synchronised. Every instruction is still
// validated against the field widths of the configuration when it is appended, so a value that
// does not fit is reported by the API call that caused it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vta/sim/contract/dependency_rule.h"
#include "vta/sim/isa.h"

namespace vta {

struct HwConfig;

const char* token_queue_name(int q);  // "l2g (load->compute)", ...

class InsnQueue {
 public:
  explicit InsnQueue(const HwConfig& cfg);

  // Appends a real instruction; the pending pops of its stage become its pop flags. Throws
  // ProgramError naming the field if a value does not fit its instruction field. Fields the
  // opcode does not use must be zero (the Insn contract), as encoding drops them.
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
  // The stream encoded for the device (computed at each call).
  std::vector<InsnWords> words() const;
  const Insn& decode(size_t i) const { return m_insns[i]; }
  const std::vector<Insn>& decoded() const { return m_insns; }
  const IsaCodec& codec() const { return m_codec; }
  // Drops every instruction and pending pop.
  void clear();

  // Stage as upstream's GetPipelineStage sees it for push folding: LOAD with x_size 0 belongs to
  // no stage; STORE (even a NOP) to the store stage; otherwise the executing stage.
  static int fold_stage(const Insn& insn);

 private:
  void append(Insn& insn, int stage);

  IsaCodec m_codec;
  uint64_t m_token_capacity;  // DEP_QUEUE_DEPTH (unbounded if the config gives 0)
  std::vector<Insn> m_insns;
  std::array<bool, 4> m_pending_pop_prev{};  // indexed by stage 1..3
  std::array<bool, 4> m_pending_pop_next{};
};

}  // namespace vta
