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
      m_stats(static_cast<size_t>(cfg.num_cores())) {
  cores.register_b_transport(this, &Interconnect::b_transport);
  for (Channel& ch : m_channels) {
    ch.own_end.assign(m_stats.size(), 0);
  }
}

void Interconnect::reset(uint64_t base) {
  for (Channel& ch : m_channels) {
    ch.free = base;
    std::fill(ch.own_end.begin(), ch.own_end.end(), base);
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

// Requests are granted in the order they arrive; those of one cycle arrive in core order
// (MemoryInterface::set_core_rank), store bursts as they are handed over, ahead of their cycles.
void Interconnect::b_transport(int core, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t g = (sc_core::sc_time_stamp() + delay).value() / cycle_time().value();
  const uint64_t addr = p.get_address();
  const uint64_t len = p.get_data_length();
  Pending me;
  me.core = core;
  me.beats = static_cast<uint32_t>(
      len == 0 ? 1 : (addr + len + m_bus_bytes - 1) / m_bus_bytes - addr / m_bus_bytes);
  me.payload = &p;
  Channel& ch = m_channels[p.is_write() ? 1 : 0];
  forward(me, grant(ch, core, me.beats, g));
  delay = me.delay;
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
