#include "pipeline_unit.h"

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/insn_check.h"

namespace vta::cycle {

PipelineUnit::PipelineUnit(sc_core::sc_module_name name, Stage stage, const PipelinePorts& ports)
    : sc_core::sc_module(name), m_ports(ports), m_stage(stage) {
  const TokenPorts& t = ports.tokens;
  TokenQueue* const by_flag[4] = {t.pop_prev, t.pop_next, t.push_prev, t.push_next};
  for (int f = 0; f < 4; ++f) {
    const int q = flag_queue(static_cast<DepFlag>(f), stage);
    TokenQueue* p = by_flag[f];
    if ((q < 0) != (p == nullptr) || (p != nullptr && p->id() != q)) {
      throw Error(fmt::format("{} unit: the {} port must be {}", stage_unit_name(stage),
                              kDepFlagName[f], q < 0 ? "null" : kTokenQueueName[q]));
    }
    if (p != nullptr) {
      m_token_q[static_cast<size_t>(q)] = p;
    }
  }
  SC_HAS_PROCESS(PipelineUnit);
  SC_THREAD(thread);
}

void PipelineUnit::set_state(uint32_t state, uint64_t c) {
  m_ports.trace.change(kSigStateLoad + m_stage - 1, c, state);
}

void PipelineUnit::begin_wait(int kind, uint64_t c) {
  if (m_wait_kind == kind) {
    return;
  }
  end_wait(c);
  m_wait_kind = kind;
  m_wait_from = c;
  set_state(
      kind == kWaitIdle ? kStateIdle : (kind >= kWaitFull0 ? kStateStallFull : kStateStallToken),
      c);
}

void PipelineUnit::end_wait(uint64_t c) {
  if (m_wait_kind == kWaitNone) {
    return;
  }
  const uint64_t n = c - m_wait_from;
  if (m_wait_kind == kWaitIdle) {
    m_stats.idle_cycles += n;
    m_waits.idle += n;
  } else if (m_wait_kind >= kWaitFull0) {
    m_stats.stall_full_cycles[m_wait_kind - kWaitFull0] += n;
    m_waits.full[static_cast<size_t>(m_wait_kind - kWaitFull0)] += n;
  } else {
    m_stats.stall_token_cycles[m_wait_kind - kWaitToken0] += n;
    m_waits.token[static_cast<size_t>(m_wait_kind - kWaitToken0)] += n;
  }
  m_wait_kind = kWaitNone;
}

UnitReport PipelineUnit::report() const {
  UnitReport u;
  if (m_busy) {
    u.kind = UnitReport::kExecuting;
    u.insn = m_head_index;
  } else if (blocked()) {
    u.kind = UnitReport::kBlocked;
    u.insn = m_head_index;
    u.block = m_block;
  } else if (m_ports.insns.empty()) {
    return u;  // kNoneLeft
  } else {
    u.kind = UnitReport::kIdle;
    u.insn = m_ports.insns.front().index;
  }
  u.opcode = m_ports.program.insn(u.insn).opcode;
  return u;
}

void PipelineUnit::thread() {
  RunControl& run = m_ports.run;
  for (;;) {
    m_gen = run.wait_start(m_gen);
    m_busy = false;
    m_wait_kind = kWaitNone;
    m_waits = InsnWaits{};
    try {
      run_loop();
    } catch (const RunAborted&) {
      // The run ended: account the cycles up to its end.
      const uint64_t end = run.end_cycle();
      if (m_busy) {
        m_stats.busy_cycles += end - m_busy_from;
        m_busy = false;
      }
      end_wait(end);
    } catch (...) {
      run.fail(std::current_exception());
      m_busy = false;
      m_wait_kind = kWaitNone;
    }
  }
}

void PipelineUnit::run_loop() {
  RunControl& run = m_ports.run;
  for (;;) {
    const uint64_t s = wait_for_start();
    const uint32_t index = m_ports.insns.front().index;
    const Insn& insn = m_ports.program.insn(index);
    start(index, insn, s);
    const uint64_t e = execute(index, insn, s);
    run.wait_until(e, m_gen);
    end(index, insn, s, e);
    if (insn.opcode == kOpFinish) {
      run.finish(e);
      throw RunAborted{};
    }
    begin_wait(kWaitIdle, e + 1);  // the cycles after E are waiting time (reclassified below)
    run.wait_until(e + 1, m_gen);
  }
}

// The start rule: the head instruction is visible, then the contract's rule over this cycle's
// view of the token queues. Returns the start cycle S.
uint64_t PipelineUnit::wait_for_start() {
  RunControl& run = m_ports.run;
  const InsnQueue& q = m_ports.insns;
  for (;;) {
    const uint64_t c = now_cycle();
    if (q.empty() || q.front().visible > c) {
      begin_wait(kWaitIdle, c);
      if (q.empty()) {
        run.wait_event(q.pushed(), m_gen);
      } else {
        run.wait_until(q.front().visible, m_gen);
      }
      continue;
    }
    m_head_index = q.front().index;
    const StartBlock block = start_block_at(m_ports.program.insn(m_head_index), c);
    if (!block.blocked()) {
      return c;
    }
    wait_while_blocked(block, c);
  }
}

StartBlock PipelineUnit::start_block_at(const Insn& insn, uint64_t c) const {
  return start_block_with(
      token_use(insn, m_stage),
      [&](int q) { return m_token_q[static_cast<size_t>(q)]->can_pop(c); },
      [&](int q) { return !m_token_q[static_cast<size_t>(q)]->full_for_producer(c); });
}

// Accounts the stall from cycle c and waits for the event that may lift it.
void PipelineUnit::wait_while_blocked(const StartBlock& block, uint64_t c) {
  RunControl& run = m_ports.run;
  const TokenQueue& t = *m_token_q[static_cast<size_t>(block.queue)];
  m_block = block;
  if (block.on_push()) {
    begin_wait(kWaitFull0 + block.queue, c);
    run.wait_event(t.popped(), m_gen);
  } else {
    begin_wait(kWaitToken0 + block.queue, c);
    if (t.empty()) {
      run.wait_event(t.pushed(), m_gen);
    } else {
      run.wait_until(t.front().visible, m_gen);
    }
  }
}

// Cycle S: the instruction leaves the queue and its tokens are popped.
void PipelineUnit::start(uint32_t index, const Insn& insn, uint64_t s) {
  TraceRecorder& trace = m_ports.trace;
  end_wait(s);
  m_ports.insns.pop(s);
  trace.change(kSigQueueLoad + m_stage - 1, s, m_ports.insns.size());
  trace.change(kSigInsnLoad + m_stage - 1, s, index);
  set_state(kStateBusy, s);
  const TokenUse use = token_use(insn, m_stage);
  for (int k = 0; k < 2; ++k) {
    const int q = use.pop(k);
    if (q >= 0) {
      TokenQueue& t = *m_token_q[static_cast<size_t>(q)];
      const TokenQueue::Token token = t.pop(s);
      trace.flow_end(token.flow_id, m_stage, s, kTokenQueueName[q]);
      trace.change(kSigTokL2G + q, s, t.size());
    }
  }
  m_busy = true;
  m_busy_from = s;
  m_mem_stall_from = m_stats.mem_stall_cycles;
  ++m_ports.stats.get().insn_count[insn.opcode];
  ++m_stats.insns;
}

// Cycle E: the tokens are pushed.
void PipelineUnit::end(uint32_t index, const Insn& insn, uint64_t s, uint64_t e) {
  TraceRecorder& trace = m_ports.trace;
  const TokenUse use = token_use(insn, m_stage);
  for (int k = 0; k < 2; ++k) {
    const int q = use.push(k);
    if (q >= 0) {
      TokenQueue& t = *m_token_q[static_cast<size_t>(q)];
      const uint64_t id = trace.new_flow_id();
      t.push(e, id);
      trace.flow_start(id, m_stage, e, kTokenQueueName[q]);
      trace.change(kSigTokL2G + q, e, t.size());
    }
  }
  m_waits.mem_stall = m_stats.mem_stall_cycles - m_mem_stall_from;
  trace.span(m_stage, index, s, e, insn, m_waits);
  m_waits = InsnWaits{};
  m_stats.busy_cycles += e - s + 1;
  m_busy = false;
  m_ports.run.retired(e);
}

uint64_t PipelineUnit::execute_load(const ReadPort& client, uint32_t index, const Insn& i,
                                    uint64_t s) {
  if (i.x_size == 0) {
    return s;  // NOP
  }
  FunctionalCore& fc = m_ports.core;
  fc.start_load(index, i);
  const uint64_t width = static_cast<uint64_t>(i.x_pad_0) + i.x_size + i.x_pad_1;
  const uint64_t pad = (static_cast<uint64_t>(i.y_pad_0) + i.y_pad_1) * width +
                       static_cast<uint64_t>(i.y_size) * (i.x_pad_0 + i.x_pad_1);
  const uint64_t e_bytes = fc.dram_elem_bytes(i.memory_type);
  const uint64_t row_bytes = i.x_size * e_bytes;
  if (m_staged.size() < row_bytes * i.y_size) {
    m_staged.resize(row_bytes * i.y_size);  // every byte is written by the bursts below
  }
  std::vector<ReadRequest>& reqs = m_reqs;
  std::vector<Burst>& bursts = m_bursts;
  reqs.clear();
  uint64_t beats = 0;
  for (uint64_t y = 0; y < i.y_size; ++y) {
    const uint64_t a = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e_bytes;
    bursts.clear();
    split_bursts(m_ports.cfg, a, a + row_bytes, bursts);
    for (const Burst& b : bursts) {
      reqs.push_back(ReadRequest{b, m_staged.data() + y * row_bytes + (b.addr - a)});
      beats += b.beats;
    }
  }
  if (reqs.empty()) {
    fc.write_load(i, m_staged.data());
    return s + pad;
  }
  client.post(reqs, s + pad + 1);
  while (!client.idle()) {
    m_ports.run.wait_event(client.done(), m_gen);
  }
  const uint64_t e = client.last_beat() + 1;
  fc.write_load(i, m_staged.data());
  m_stats.mem_stall_cycles += e - s - pad - beats;
  return e;
}

}  // namespace vta::cycle
