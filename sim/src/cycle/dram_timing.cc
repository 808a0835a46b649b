#include "vta/sim/cycle/dram_timing.h"

#include <algorithm>

namespace vta::cycle {

void split_bursts(const HwConfig& cfg, uint64_t a, uint64_t b, std::vector<Burst>& out) {
  const uint64_t bus = static_cast<uint64_t>(cfg.bus_bytes);
  const uint64_t boundary = static_cast<uint64_t>(cfg.burst_boundary_bytes);
  const uint64_t max_bytes = static_cast<uint64_t>(cfg.max_burst_beats) * bus;
  uint64_t pos = a;
  while (pos < b) {
    const uint64_t beat0 = pos / bus * bus;
    const uint64_t limit = std::min(beat0 + max_bytes, (beat0 / boundary + 1) * boundary);
    const uint64_t end = std::min(b, limit);
    Burst burst;
    burst.addr = pos;
    burst.bytes = static_cast<uint32_t>(end - pos);
    burst.beats = static_cast<uint32_t>((end + bus - 1) / bus - beat0 / bus);
    out.push_back(burst);
    pos = end;
  }
}

DramTiming::DramTiming(const HwConfig& cfg)
    : m_read_latency(static_cast<uint64_t>(cfg.dram_read_latency_cycles)),
      m_write_latency(static_cast<uint64_t>(cfg.dram_write_latency_cycles)),
      m_cpb(static_cast<uint32_t>(cfg.dram_cycles_per_beat)) {}

void DramTiming::reset(uint64_t cycle) {
  m_read_free = m_write_free = cycle;
}

ReadBeats DramTiming::read(uint64_t grant, uint32_t beats) {
  ReadBeats r;
  r.interval = m_cpb;
  r.first = std::max(grant + m_read_latency, m_read_free);
  r.last = r.first + static_cast<uint64_t>(beats - 1) * m_cpb;
  m_read_free = r.first + static_cast<uint64_t>(beats) * m_cpb;
  return r;
}

WriteBeats DramTiming::write(uint64_t grant, uint32_t beats) {
  WriteBeats w;
  w.interval = m_cpb;
  w.first = std::max(grant + 1, m_write_free);
  w.last = w.first + static_cast<uint64_t>(beats - 1) * m_cpb;
  w.response = w.last + m_write_latency;
  m_write_free = w.first + static_cast<uint64_t>(beats) * m_cpb;
  return w;
}

}  // namespace vta::cycle
