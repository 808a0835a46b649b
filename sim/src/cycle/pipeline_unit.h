// PipelineUnit: what the load, compute and store units of VTA have in common: an in-order
// instruction queue fed by fetch, the start rule of the timing contract (instruction visible,
// then the contract's start_block_with over the token queues: tokens to pop visible, queues to
// push not full; sim/README.md section 1), the token pushes in the end cycle, and the per-unit
// cycle accounting (busy / idle / stalled on each queue). Subclasses say how long an
// instruction takes (execute()). A unit touches only its ports (unit_ports.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <systemc>

#include "unit_ports.h"
#include "vta/sim/contract/deadlock_report.h"
#include "vta/sim/contract/dependency_rule.h"

namespace vta::cycle {

struct UnitStats {
  uint64_t busy_cycles = 0;                      // cycles inside an instruction [S, E]
  uint64_t idle_cycles = 0;                      // no instruction visible
  std::array<uint64_t, 4> stall_token_cycles{};  // waiting for a token, per queue
  std::array<uint64_t, 4> stall_full_cycles{};   // waiting for room in a queue, per queue
  uint64_t mem_stall_cycles = 0;  // part of busy: waiting on memory (DMA instructions)
  uint64_t insns = 0;             // instructions executed
};

class PipelineUnit : public sc_core::sc_module {
 public:
  // Throws Error if `ports.tokens` are not the queues the start rule names for `stage`.
  PipelineUnit(sc_core::sc_module_name name, Stage stage, const PipelinePorts& ports);

  const UnitStats& stats() const { return m_stats; }
  void clear_stats() { m_stats = UnitStats{}; }
  Stage stage() const { return m_stage; }
  // What the unit is doing or waiting for, for the deadlock report.
  UnitReport report() const;
  // True if the unit is blocked on a token or a full queue (not idle, not busy).
  bool blocked() const { return m_wait_kind >= kWaitToken0; }

 protected:
  // Executes instruction `index` that started in absolute cycle S = now; returns its end cycle
  // E (the unit may wait inside, e.g. for memory). Functional effects happen inside.
  virtual uint64_t execute(uint32_t index, const Insn& insn, uint64_t s) = 0;

  // Loads of this unit (INP/WGT for load, UOP/ACC for compute) through read client `client`:
  // the DMA timing of sim/README.md section 4.
  uint64_t execute_load(const ReadPort& client, uint32_t index, const Insn& insn, uint64_t s);

  const PipelinePorts m_ports;
  UnitStats m_stats;
  uint64_t m_gen = 0;

 private:
  enum WaitKind : int {
    kWaitNone = -1,
    kWaitIdle = 0,
    kWaitToken0 = 1,  // + queue id
    kWaitFull0 = 5,   // + queue id
  };

  void thread();
  void run_loop();
  // The steps of one instruction: wait until the start rule lets the head instruction start
  // (returns S), start it in S, end it in E.
  uint64_t wait_for_start();
  StartBlock start_block_at(const Insn& insn, uint64_t c) const;
  void wait_while_blocked(const StartBlock& block, uint64_t c);
  void start(uint32_t index, const Insn& insn, uint64_t s);
  void end(uint32_t index, const Insn& insn, uint64_t s, uint64_t e);

  void begin_wait(int kind, uint64_t c);
  void end_wait(uint64_t c);
  void set_state(uint32_t state, uint64_t c);

  Stage m_stage;
  std::array<TokenQueue*, 4> m_token_q{};  // index = TokenQueueId: this unit's queues only
  int m_wait_kind = kWaitNone;
  StartBlock m_block;  // while blocked: the flag and queue
  uint64_t m_wait_from = 0;
  uint64_t m_busy_from = 0;
  InsnWaits m_waits;              // waits since the previous instruction ended (for the trace)
  uint64_t m_mem_stall_from = 0;  // mem_stall_cycles when the current instruction started
  bool m_busy = false;
  uint32_t m_head_index = 0;  // instruction at the head (or executing)
  // DMA staging buffer and burst lists, kept between LOADs (they only grow).
  std::vector<uint8_t> m_staged;
  std::vector<ReadRequest> m_reqs;
  std::vector<Burst> m_bursts;
};

}  // namespace vta::cycle
