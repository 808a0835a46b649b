#include "pipeline_unit.h"

#include <fmt/format.h>

#include "vta/sim/insn_check.h"

namespace vta::cycle {

PipelineUnit::PipelineUnit(sc_core::sc_module_name name, CoreShared& core, Stage stage)
    : sc_core::sc_module(name), m_core(core), m_stage(stage) {
  SC_HAS_PROCESS(PipelineUnit);
  SC_THREAD(thread);
}

void PipelineUnit::set_state(uint32_t state, uint64_t c) {
  m_core.trace.change(kSigStateLoad + m_stage - 1, c, state);
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
  } else if (m_wait_kind >= kWaitFull0) {
    m_stats.stall_full_cycles[m_wait_kind - kWaitFull0] += n;
  } else {
    m_stats.stall_token_cycles[m_wait_kind - kWaitToken0] += n;
  }
  m_wait_kind = kWaitNone;
}

std::string PipelineUnit::describe() const {
  const char* unit = stage_unit_name(m_stage);
  const InsnQueue& q = *m_core.insn_q[m_stage];
  if (m_busy) {
    return fmt::format("{} unit is executing instruction {}", unit, m_head_index);
  }
  if (m_wait_kind >= kWaitFull0) {
    const int k = m_wait_kind - kWaitFull0;
    return fmt::format(
        "{} unit is blocked at instruction {}: its push waits for room in queue "
        "{} (full, {} tokens)",
        unit, m_head_index, kTokenQueueName[k], m_core.tokens[k].size());
  }
  if (m_wait_kind >= kWaitToken0) {
    const int k = m_wait_kind - kWaitToken0;
    const char* flag = (kPopPrev[m_stage] == k) ? "pop_prev_dep" : "pop_next_dep";
    return fmt::format("{} unit is blocked at instruction {}: {} waits on queue {} (empty)", unit,
                       m_head_index, flag, kTokenQueueName[k]);
  }
  if (q.empty()) {
    return fmt::format("{} unit has no instructions left", unit);
  }
  return fmt::format("{} unit is idle", unit);
}

void PipelineUnit::thread() {
  for (;;) {
    m_gen = m_core.run.wait_start(m_gen);
    m_busy = false;
    m_wait_kind = kWaitNone;
    try {
      run_loop();
    } catch (const RunAborted&) {
      // The run ended: account the cycles up to its end.
      const uint64_t end = m_core.run.end_cycle();
      if (m_busy) {
        m_stats.busy_cycles += end - m_busy_from;
        m_busy = false;
      }
      end_wait(end);
    } catch (...) {
      m_core.run.fail(std::current_exception());
      m_busy = false;
      m_wait_kind = kWaitNone;
    }
  }
}

void PipelineUnit::run_loop() {
  RunControl& run = m_core.run;
  InsnQueue& q = *m_core.insn_q[m_stage];
  const uint64_t gen = m_gen;
  const int pop_prev = kPopPrev[m_stage], pop_next = kPopNext[m_stage];
  const int push_prev = kPushPrev[m_stage], push_next = kPushNext[m_stage];
  for (;;) {
    // ---- 1. wait for the start conditions ----
    uint64_t c = now_cycle();
    if (q.empty() || q.front().visible > c) {
      begin_wait(kWaitIdle, c);
      if (q.empty()) {
        run.wait_event(q.pushed(), gen);
      } else {
        run.wait_until(q.front().visible, gen);
      }
      continue;
    }
    const uint32_t index = q.front().index;
    m_head_index = index;
    const Insn insn = m_core.insns_decoded[index];
    bool ok = true;
    for (const auto& [flag, k] :
         {std::pair{insn.pop_prev_dep, pop_prev}, std::pair{insn.pop_next_dep, pop_next}}) {
      if (ok && flag && !m_core.tokens[k].can_pop(c)) {
        begin_wait(kWaitToken0 + k, c);
        const TokenQueue& t = m_core.tokens[k];
        if (t.empty()) {
          run.wait_event(t.pushed(), gen);
        } else {
          run.wait_until(t.front().visible, gen);
        }
        ok = false;
      }
    }
    if (!ok) {
      continue;
    }
    for (const auto& [flag, k] :
         {std::pair{insn.push_prev_dep, push_prev}, std::pair{insn.push_next_dep, push_next}}) {
      if (ok && flag && m_core.tokens[k].full_for_producer(c)) {
        begin_wait(kWaitFull0 + k, c);
        run.wait_event(m_core.tokens[k].popped(), gen);
        ok = false;
      }
    }
    if (!ok) {
      continue;
    }

    // ---- 2. start in cycle S: pop the instruction and the tokens ----
    const uint64_t s = c;
    end_wait(s);
    q.pop(s);
    m_core.trace.change(kSigQueueLoad + m_stage - 1, s, q.size());
    m_core.trace.change(kSigInsnLoad + m_stage - 1, s, index);
    set_state(kStateBusy, s);
    for (const auto& [flag, k] :
         {std::pair{insn.pop_prev_dep, pop_prev}, std::pair{insn.pop_next_dep, pop_next}}) {
      if (flag) {
        const TokenQueue::Token t = m_core.tokens[k].pop(s);
        m_core.trace.flow_end(t.flow_id, m_stage, s, kTokenQueueName[k]);
        m_core.trace.change(kSigTokL2G + k, s, m_core.tokens[k].size());
      }
    }
    m_busy = true;
    m_busy_from = s;
    ++m_core.stats.insn_count[insn.opcode];
    ++m_stats.insns;

    // ---- 3. execute until E ----
    const uint64_t e = execute(index, insn, s);
    run.wait_until(e, gen);

    // ---- 4. end in cycle E: push the tokens ----
    for (const auto& [flag, k] :
         {std::pair{insn.push_prev_dep, push_prev}, std::pair{insn.push_next_dep, push_next}}) {
      if (flag) {
        const uint64_t id = m_core.next_flow_id++;
        m_core.tokens[k].push(e, id);
        m_core.trace.flow_start(id, m_stage, e, kTokenQueueName[k]);
        m_core.trace.change(kSigTokL2G + k, e, m_core.tokens[k].size());
      }
    }
    m_core.trace.span(m_stage, index, s, e, insn);
    m_stats.busy_cycles += e - s + 1;
    m_busy = false;
    if (insn.opcode == kOpFinish) {
      run.finish(e);
      throw RunAborted{};
    }
    begin_wait(kWaitIdle, e + 1);  // the cycles after E are waiting time (reclassified below)
    run.wait_until(e + 1, gen);
  }
}

uint64_t PipelineUnit::execute_load(int client, uint32_t index, const Insn& i, uint64_t s) {
  if (i.x_size == 0) {
    return s;  // NOP
  }
  FunctionalCore& fc = m_core.functional;
  fc.start_load(index, i);
  const uint64_t width = static_cast<uint64_t>(i.x_pad_0) + i.x_size + i.x_pad_1;
  const uint64_t pad = (static_cast<uint64_t>(i.y_pad_0) + i.y_pad_1) * width +
                       static_cast<uint64_t>(i.y_size) * (i.x_pad_0 + i.x_pad_1);
  const uint64_t e_bytes = fc.dram_elem_bytes(i.memory_type);
  const uint64_t row_bytes = i.x_size * e_bytes;
  m_staged.resize(row_bytes * i.y_size);
  std::vector<ReadRequest> reqs;
  std::vector<Burst> bursts;
  uint64_t beats = 0;
  for (uint64_t y = 0; y < i.y_size; ++y) {
    const uint64_t a = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e_bytes;
    bursts.clear();
    split_bursts(m_core.cfg, a, a + row_bytes, bursts);
    for (const Burst& b : bursts) {
      reqs.push_back(ReadRequest{b, m_staged.data() + y * row_bytes + (b.addr - a)});
      beats += b.beats;
    }
  }
  if (reqs.empty()) {
    fc.write_load(i, m_staged.data());
    return s + pad;
  }
  m_core.mem->post_reads(client, std::move(reqs), s + pad + 1);
  while (!m_core.mem->idle(client)) {
    m_core.run.wait_event(m_core.mem->done(client), m_gen);
  }
  const uint64_t e = m_core.mem->last_beat(client) + 1;
  fc.write_load(i, m_staged.data());
  m_stats.mem_stall_cycles += e - s - pad - beats;
  return e;
}

}  // namespace vta::cycle
