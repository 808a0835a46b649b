#include "interconnect.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/sim/cycle/memory_target.h"

namespace vta::cycle {

Interconnect::Interconnect(sc_core::sc_module_name name, const HwConfig& cfg)
    : sc_core::sc_module(name),
      cores("cores"),
      memory("memory"),
      m_latency(static_cast<uint64_t>(cfg.interconnect_latency_cycles)),
      m_bytes_per_cycle(static_cast<uint64_t>(cfg.interconnect_bytes_per_cycle)),
      m_bus_bytes(static_cast<uint64_t>(cfg.bus_bytes)),
      m_round_robin(cfg.interconnect_round_robin),
      m_stats(static_cast<size_t>(cfg.num_cores())) {
  cores.register_b_transport(this, &Interconnect::b_transport);
  for (Channel& ch : m_channels) {
    ch.own_end.assign(m_stats.size(), 0);
  }
}

void Interconnect::reset(uint64_t base) {
  ++m_run;
  for (Channel& ch : m_channels) {
    ch.free = base;
    std::fill(ch.own_end.begin(), ch.own_end.end(), base);
    ch.next = 0;
  }
}

void Interconnect::clear_stats() {
  std::fill(m_stats.begin(), m_stats.end(), InterconnectCoreStats{});
}

uint64_t Interconnect::grant(Channel& ch, int core, uint32_t beats, uint64_t g) {
  const auto k = static_cast<size_t>(core);
  const uint64_t s = std::max(g, ch.free);
  // Alone, the core would have been granted once its own previous burst let go of the link.
  const uint64_t alone = std::max(g, ch.own_end[k]);
  m_stats[k].contention_cycles += s - alone;
  const uint64_t hold = (beats * m_bus_bytes + m_bytes_per_cycle - 1) / m_bytes_per_cycle;
  ch.free = s + std::max<uint64_t>(hold, 1);
  ch.own_end[k] = ch.free;
  return s;
}

// Requests of the current cycle wait for their round: the first one to arrive waits until no
// other process has anything left to do in this cycle (every request of the cycle has arrived),
// then grants them all in rotating priority and hands them to the memory model in that order.
// Requests handed over ahead of their cycle (the store's write bursts), and every request of a
// single core, are granted at once, in the order handed over.
void Interconnect::b_transport(int core, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t g = (sc_core::sc_time_stamp() + delay).value() / cycle_time().value();
  const uint64_t now = now_cycle();
  const uint64_t addr = p.get_address();
  const uint64_t len = p.get_data_length();
  Pending me;
  me.core = core;
  me.beats = static_cast<uint32_t>(
      len == 0 ? 1 : (addr + len + m_bus_bytes - 1) / m_bus_bytes - addr / m_bus_bytes);
  me.g = g;
  me.payload = &p;
  Channel& ch = m_channels[p.is_write() ? 1 : 0];
  if (g > now || m_stats.size() == 1) {
    forward(me, grant(ch, core, me.beats, g));
  } else {
    const uint64_t run = m_run;
    ch.round.push_back(&me);
    if (ch.round.size() == 1) {
      for (int k = 0; k < kMaxDeltas && sc_core::sc_pending_activity_at_current_time(); ++k) {
        sc_core::wait(sc_core::SC_ZERO_TIME);
      }
      serve_round(ch, run == m_run);
    }
    while (!me.released) {
      sc_core::wait(ch.served);
    }
  }
  if (!me.done) {  // its run ended while it waited: nothing moved, nothing is counted
    delay = sc_core::SC_ZERO_TIME;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  delay = me.delay;
}

// Grants the round in priority order from ch.next and passes each request to the memory.
void Interconnect::serve_round(Channel& ch, bool live) {
  const int n = static_cast<int>(m_stats.size());
  const auto rank = [&](const Pending* q) { return (q->core - ch.next + n) % n; };
  std::stable_sort(ch.round.begin(), ch.round.end(),
                   [&](const Pending* a, const Pending* b) { return rank(a) < rank(b); });
  std::vector<Pending*> round;
  round.swap(ch.round);
  if (live && !round.empty()) {
    if (m_round_robin) {  // else every round starts from core 0: fixed priority
      ch.next = (round.front()->core + 1) % n;
    }
    for (Pending* q : round) {
      forward(*q, grant(ch, q->core, q->beats, q->g));
    }
  }
  for (Pending* q : round) {
    q->released = true;
  }
  ch.served.notify();
}

// Request `q`, granted in cycle s, to the memory model: it sees it L cycles later, its data
// beats and write response come back L cycles after the memory's.
void Interconnect::forward(Pending& q, uint64_t s) {
  tlm::tlm_generic_payload& p = *q.payload;
  const auto k = static_cast<size_t>(q.core);
  m_stats[k].requests += 1;
  m_stats[k].bytes += p.get_data_length();
  const uint64_t now = now_cycle();
  sc_core::sc_time to_memory = cycles(s + m_latency - now);
  RequesterExt requester;
  requester.requester = q.core;
  p.set_extension(&requester);
  memory->b_transport(p, to_memory);
  p.clear_extension(&requester);
  MemTimingExt* ext = nullptr;
  p.get_extension(ext);
  if (ext != nullptr && ext->beats != 0) {
    ext->first += m_latency;
    ext->last += m_latency;
    ext->response += m_latency;
  }
  q.delay = to_memory + cycles(m_latency);
  q.done = true;
}

void add_system_counters(Stats& stats, const Interconnect& ic, const std::vector<double>& cycles) {
  for (size_t k = 0; k < cycles.size(); ++k) {
    const InterconnectCoreStats& s = ic.core_stats(static_cast<int>(k));
    stats.add(fmt::format("core{}.cycles", k), cycles[k], "cycles",
              "cycles of this core's runs in runs of several cores");
    stats.add(fmt::format("core{}.dram_contention_cycles", k),
              static_cast<double>(s.contention_cycles), "cycles",
              "cycles this core's bursts waited at the interconnect behind other cores'");
    stats.add(fmt::format("core{}.interconnect_bursts", k), static_cast<double>(s.requests),
              "bursts", "bursts this core sent through the interconnect");
  }
}

}  // namespace vta::cycle
