// The timed implementation of the memory model "dram" (DramMemory, dram_memory.h; described in
// sim/src/dram_memory_model.cc) and its registration.
#include "vta/sim/cycle/dram_memory.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace vta::cycle {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return a <= 0 ? 0 : (a + b - 1) / b;
}

std::unique_ptr<MemoryTarget> make_dram(sc_core::sc_module_name name, const HwConfig& cfg,
                                        Dram& dram) {
  return std::make_unique<DramMemory>(name, cfg, dram);
}

}  // namespace

DramMemory::DramMemory(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram)
    : MemoryTarget(name, dram),
      socket("socket"),
      m_cfg(cfg),
      m_ctrl(cfg.memory.dram),
      m_core_ps(static_cast<int64_t>(std::llround(1.0e6 / cfg.clock_mhz))),
      m_link_ps(static_cast<int64_t>(std::llround(cfg.memory.dram.interconnect_ns * 1000.0))),
      m_read_free_of(static_cast<size_t>(std::max(1, cfg.num_cores()))) {
  socket.register_b_transport(this, &DramMemory::b_transport);
  m_stats.present = true;
  m_stats.peak_bytes_per_cycle =
      cfg.memory.dram.peak_bytes_per_ns() * static_cast<double>(m_core_ps) / 1000.0;
}

void DramMemory::reset(uint64_t base_cycle) {
  m_base = base_cycle;
  m_read_free = m_write_free = m_resp_free = base_cycle;
  std::fill(m_read_free_of.begin(), m_read_free_of.end(), base_cycle);
  m_ctrl.reset();
  m_commands.clear();
}

void DramMemory::reset_counters() {
  const double peak = m_stats.peak_bytes_per_cycle;
  m_stats = TimedCounters::Dram{};
  m_stats.present = true;
  m_stats.peak_bytes_per_cycle = peak;
  m_ctrl.clear_counters();
}

int64_t DramMemory::dram_cycle_at(uint64_t c) const {
  const int64_t ps = static_cast<int64_t>(c - m_base) * m_core_ps + m_link_ps;
  return ceil_div(ps, m_ctrl.spec().tck_ps);
}

uint64_t DramMemory::core_cycle_back(int64_t ck) const {
  const int64_t ps = ck * m_ctrl.spec().tck_ps + m_link_ps;
  return m_base + static_cast<uint64_t>(ceil_div(ps, m_core_ps));
}

// Read: the controller's data, back across the interconnect, then one beat per core cycle on
// the read data channel; the last beat not before the last DRAM data is back.
ReadBeats DramMemory::time_read(uint64_t addr, uint32_t beats, uint64_t grant) {
  const uint64_t bus = static_cast<uint64_t>(m_cfg.bus_bytes);
  const DramReadTiming d = m_ctrl.read(addr / bus * bus, beats * bus, dram_cycle_at(grant), grant);
  const uint64_t first_back = core_cycle_back(d.first_end);
  const uint64_t last_back = core_cycle_back(d.last_end);
  ReadBeats r;
  r.interval = 1;
  const uint64_t spread = beats - 1u;  // the last beat may not precede the last data back
  uint64_t& channel_free = m_ctrl.spec().out_of_order ? m_read_free_of[m_requester] : m_read_free;
  r.first = std::max(
      {grant + 1, channel_free, first_back, last_back > spread ? last_back - spread : uint64_t{0}});
  r.last = r.first + beats - 1;
  channel_free = r.last + 1;
  ++m_stats.read_bursts;
  m_stats.read_latency_sum += r.last - grant;
  m_stats.read_latency_max = std::max(m_stats.read_latency_max, r.last - grant);
  return r;
}

// Write: beats on the write data channel, one per core cycle; the controller takes the burst
// into its write queue when the last beat arrives and answers at once (a posted write). The
// write response channel, like AXI's B channel, carries at most one response per core cycle.
WriteBeats DramMemory::time_write(uint64_t addr, uint32_t beats, uint64_t grant) {
  const uint64_t bus = static_cast<uint64_t>(m_cfg.bus_bytes);
  WriteBeats w;
  w.interval = 1;
  w.first = std::max(grant + 1, m_write_free);
  w.last = w.first + beats - 1;
  m_write_free = w.last + 1;
  const int64_t arrival = dram_cycle_at(w.last);
  m_ctrl.post_write(addr / bus * bus, beats * bus, arrival, grant);
  w.response = std::max(core_cycle_back(arrival), m_resp_free);
  m_resp_free = w.response + 1;
  return w;
}

// The core cycle DRAM command `c` is issued in at the DRAM (no interconnect).
uint64_t DramMemory::command_cycle(const DramCommand& c) const {
  return m_base + static_cast<uint64_t>(ceil_div(c.ck * m_ctrl.spec().tck_ps, m_core_ps));
}

// One event per core cycle (the DRAM clock is faster: events must not overlap on a track),
// naming its commands in order, repeats counted: "RD bank 0 row 1 x2, ACT bank 1 row 1".
void DramMemory::take_trace_events(std::vector<MemoryTraceEvent>& out,
                                   const std::function<bool(uint64_t)>& keep) {
  static const char* const kName[] = {"ACT", "PRE", "RD", "WR", "REF"};
  const DramSpec& s = m_ctrl.spec();
  std::vector<std::pair<std::string, int>> group;  // the commands of one core cycle
  uint64_t group_cycle = 0;
  const auto flush = [&] {
    std::string name;
    for (const auto& [what, n] : group) {
      name += (name.empty() ? "" : ", ") + what + (n > 1 ? fmt::format(" x{}", n) : "");
    }
    if (!group.empty()) {
      out.push_back(MemoryTraceEvent{group_cycle, std::move(name)});
    }
    group.clear();
  };
  const auto add = [&](uint64_t cycle, std::string what) {
    if (!group.empty() && cycle != group_cycle) {
      flush();
    }
    group_cycle = cycle;
    if (!group.empty() && group.back().first == what) {
      ++group.back().second;
    } else {
      group.emplace_back(std::move(what), 1);
    }
  };
  // In issue order (the log is in scheduling order: an ACT may be issued ahead of an earlier
  // logged READ of another bank).
  std::vector<const DramCommand*> order;
  size_t in_window = 0;
  for (const DramCommand& c : m_commands) {
    if (keep(command_cycle(c)) && ++in_window <= kMaxTraceCommands) {
      order.push_back(&c);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const DramCommand* a, const DramCommand* b) { return a->ck < b->ck; });
  for (const DramCommand* c : order) {
    std::string name = kName[c->kind];
    if (s.channels > 1 || s.ranks > 1) {
      name += fmt::format(" ch{} ra{}", c->channel, c->rank);
    }
    if (c->kind != DramCommand::kRefresh) {
      name += c->row >= 0 ? fmt::format(" bank {} row {}", c->bank, c->row)
                          : fmt::format(" bank {}", c->bank);
    }
    add(command_cycle(*c), std::move(name));
  }
  if (in_window > order.size()) {
    add(group_cycle,
        fmt::format("{} more DRAM commands in this run, not traced", in_window - order.size()));
  }
  flush();
  m_commands.clear();
}

void DramMemory::add_counters(TimedCounters& out) const {
  const DramCounters& c = m_ctrl.counters();
  out.dram = m_stats;
  out.dram.activates = c.activates;
  out.dram.refreshes = c.refreshes;
  out.dram.row_hits = c.row_hits;
  out.dram.row_misses = c.row_misses;
  out.dram.row_conflicts = c.row_conflicts;
  out.dram.bytes = c.bytes;
}

void DramMemory::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  RequesterExt* who = nullptr;
  p.get_extension(who);
  const size_t k = who != nullptr ? static_cast<size_t>(std::max(0, who->requester)) : 0;
  m_requester = std::min(k, m_read_free_of.size() - 1);
  serve(p, delay, m_cfg.bus_bytes);
}

VTA_REGISTER_TIMED_MEMORY_MODEL(dram, &make_dram);

}  // namespace vta::cycle
