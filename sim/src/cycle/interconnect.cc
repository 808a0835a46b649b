#include "interconnect.h"

#include <algorithm>

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

void Interconnect::b_transport(int core, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t now = now_cycle();
  const uint64_t g = (sc_core::sc_time_stamp() + delay).value() / cycle_time().value();
  const uint64_t addr = p.get_address();
  const uint64_t len = p.get_data_length();
  const auto beats = static_cast<uint32_t>(
      len == 0 ? 1 : (addr + len + m_bus_bytes - 1) / m_bus_bytes - addr / m_bus_bytes);
  Channel& ch = m_channels[p.is_write() ? 1 : 0];
  const uint64_t s = grant(ch, core, beats, g);
  m_stats[static_cast<size_t>(core)].requests += 1;
  m_stats[static_cast<size_t>(core)].bytes += len;
  sc_core::sc_time to_memory = cycles(s + m_latency - now);
  memory->b_transport(p, to_memory);
  MemTimingExt* ext = nullptr;
  p.get_extension(ext);
  if (ext != nullptr && ext->beats != 0) {
    ext->first += m_latency;
    ext->last += m_latency;
    ext->response += m_latency;
  }
  delay = to_memory + cycles(m_latency);
}

}  // namespace vta::cycle
