#include "fetch_unit.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/insn_check.h"
#include "vta/sim/isa.h"

namespace vta::cycle {

FetchUnit::FetchUnit(sc_core::sc_module_name name, const FetchPorts& ports)
    : sc_core::sc_module(name), m_ports(ports) {
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (ports.insns[static_cast<size_t>(s)] == nullptr) {
      throw Error(fmt::format("fetch unit: no instruction queue for the {} unit",
                              stage_unit_name(static_cast<Stage>(s))));
    }
  }
  SC_HAS_PROCESS(FetchUnit);
  SC_THREAD(requester);
  SC_THREAD(dispatcher);
}

void FetchUnit::on_grant(const ReadRequest& req, const ReadBeats& beats) {
  // Instruction i arrives with the beat holding its last byte.
  const uint64_t bus = static_cast<uint64_t>(m_ports.cfg.bus_bytes);
  const uint64_t a = m_ports.program.get().insn_phys;
  const size_t k = m_granted++;
  m_burst_last[k] = beats.last;
  const uint64_t beat0 = req.burst.addr / bus;
  if (m_ports.trace.tracing()) {
    m_ports.trace.span_named(0, now_cycle(), beats.last,
                             fmt::format("fetch burst {}: instructions {}..{}", k, m_arrived,
                                         m_insns_through[k] == 0 ? 0 : m_insns_through[k] - 1));
  }
  while (m_arrived < m_insns_through[k]) {
    const uint64_t last_byte = a + static_cast<uint64_t>(m_arrived) * kInsnBytes + kInsnBytes - 1;
    m_arrival[m_arrived] = beats.first + (last_byte / bus - beat0) * beats.interval;
    ++m_arrived;
  }
  m_arrived_ev.notify(sc_core::SC_ZERO_TIME);
  m_granted_ev.notify(sc_core::SC_ZERO_TIME);
}

void FetchUnit::requester() {
  RunControl& run = m_ports.run;
  m_ports.mem.set_grant_callback(
      [this](const ReadRequest& r, const ReadBeats& b) { on_grant(r, b); });
  for (;;) {
    const uint64_t gen = run.wait_start(m_run_seen_req);
    m_run_seen_req = gen;
    try {
      // Per-run setup (the dispatcher waits for it through m_arrived_ev).
      const uint32_t count = m_ports.program.get().count();
      const uint64_t a = m_ports.program.get().insn_phys;
      const uint64_t b = a + static_cast<uint64_t>(count) * kInsnBytes;
      m_bursts.clear();
      split_bursts(m_ports.cfg, a, b, m_bursts);
      m_insns_through.assign(m_bursts.size(), 0);
      for (size_t k = 0; k < m_bursts.size(); ++k) {
        const uint64_t end = m_bursts[k].addr + m_bursts[k].bytes;
        m_insns_through[k] = static_cast<uint32_t>((end - a) / kInsnBytes);
      }
      m_granted = 0;
      m_burst_last.assign(m_bursts.size(), 0);
      m_arrival.assign(count, 0);
      m_dispatch.assign(count, 0);
      m_arrived = 0;
      m_next = 0;
      m_fetched.assign(b - a, 0);
      const uint64_t base = run.base();
      for (size_t k = 0; k < m_bursts.size(); ++k) {
        // Burst k is posted in cycle max(last beat of k-1, last dispatch of burst k-2).
        uint64_t post = base;
        if (k >= 1) {
          while (m_granted < k) {
            run.wait_event(m_granted_ev, gen);
          }
          post = std::max(post, m_burst_last[k - 1]);
        }
        if (k >= 2) {
          const uint32_t need = m_insns_through[k - 2];
          while (m_next < need) {
            run.wait_event(m_dispatched_ev, gen);
          }
          if (need > 0) {
            post = std::max(post, m_dispatch[need - 1]);
          }
        }
        ReadRequest req;
        req.burst = m_bursts[k];
        req.dst = m_fetched.data() + (m_bursts[k].addr - a);
        m_ports.mem.post({req}, post + 1);
      }
      // Nothing more to do this run.
      for (;;) {
        run.wait_event(m_granted_ev, gen);
      }
    } catch (const RunAborted&) {
    }
  }
}

void FetchUnit::dispatcher() {
  RunControl& run = m_ports.run;
  for (;;) {
    const uint64_t gen = run.wait_start(m_run_seen_disp);
    m_run_seen_disp = gen;
    try {
      const uint64_t base = run.base();
      uint64_t prev = base - 1;
      uint64_t stall_from = 0;
      // The requester sets up the run's vectors in its first activation at `base`; let it.
      run.wait_event(m_arrived_ev, gen);
      for (uint32_t i = 0; i < m_ports.program.get().count(); ++i) {
        while (m_arrived <= i) {
          run.wait_event(m_arrived_ev, gen);
        }
        run.wait_until(std::max(m_arrival[i] + 1, prev + 1), gen);
        // Routed as the loaded program says (decoded from the same bytes before cycle 0).
        const Stage stage = m_ports.program.insn(i).stage();
        InsnQueue& q = *m_ports.insns[stage];
        bool stalled = false;
        while (q.full_for_producer(now_cycle())) {
          if (!stalled) {
            stalled = true;
            stall_from = now_cycle();
          }
          run.wait_event(q.popped(), gen);
        }
        const uint64_t c = now_cycle();
        if (stalled) {
          m_stats.stall_queue_full_cycles += c - stall_from;
        }
        q.push(i, c);
        m_ports.trace.change(kSigQueueLoad + stage - 1, c, q.size());
        m_dispatch[i] = c;
        prev = c;
        m_next = i + 1;
        ++m_stats.dispatched;
        m_stats.active_cycles = c + 1 - base;  // per run; accumulated by the core at run end
        m_ports.trace.change(kSigFetchDispatched, c, m_next);
        m_dispatched_ev.notify(sc_core::SC_ZERO_TIME);
      }
      for (;;) {
        run.wait_event(m_dispatched_ev, gen);
      }
    } catch (const RunAborted&) {
    }
  }
}

}  // namespace vta::cycle
