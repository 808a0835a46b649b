// A cycle-stepped reference of the timing contract (sim/README.md), for tests: it evaluates
// every rule once per clock cycle, with explicit "visible from the next cycle" bookkeeping,
// instead of the model's event-driven skip-ahead. It computes only timing (no values). Random
// programs must give exactly the same cycle count on both.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "cycle_test_util.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"

namespace vta::cycletest {

struct RefRun {
  bool finished = false;
  uint64_t cycles = 0;               // E(FINISH) + 1
  std::vector<uint64_t> start, end;  // per instruction (kNone if not executed)
};

class RefCycleModel {
 public:
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

  RefCycleModel(const HwConfig& cfg, const std::vector<Insn>& insns, uint64_t insn_phys)
      : m_cfg(cfg), m_insns(insns), m_a(insn_phys) {}

  RefRun run(uint64_t max_cycles) {
    setup();
    for (uint64_t c = 0; c < max_cycles && !m_result.finished; ++c) {
      step_arbiter(c);
      step_dispatch(c);
      step_fetch_post(c);
      for (int s = kStageLoad; s <= kStageStore && !m_result.finished; ++s) {
        step_unit(s, c);
      }
    }
    return m_result;
  }

 private:
  struct Client {
    std::deque<uint64_t> beats;  // pending bursts
    uint64_t eligible = 0;
    int owner = -1;  // unit waiting for it (-1: fetch)
    size_t remaining = 0;
    uint64_t last_beat = 0;
  };
  struct Unit {
    uint64_t free_at = 0;
    bool busy = false;
    size_t insn = 0;
    uint64_t e = kNone;  // end cycle once known
  };
  struct Timed {
    std::vector<uint64_t> push, pop;  // cycles
    // Visible count in cycle c: pushes before c minus pops before c.
    uint64_t seen(uint64_t c) const {
      const auto before = [c](const std::vector<uint64_t>& v) {
        return static_cast<uint64_t>(
            std::count_if(v.begin(), v.end(), [c](uint64_t t) { return t < c; }));
      };
      return before(push) - before(pop);
    }
  };

  void setup() {
    const size_t n = m_insns.size();
    m_result = RefRun{};
    m_result.start.assign(n, kNone);
    m_result.end.assign(n, kNone);
    // Fetch bursts of the stream, found beat by beat; instruction i belongs to the burst that
    // holds its last byte.
    const uint64_t bus = static_cast<uint64_t>(m_cfg.bus_bytes);
    const uint64_t b = m_a + 16 * n;
    m_fetch_beats = ref_burst_beats(m_cfg, m_a, b);
    m_through.clear();
    uint64_t beat = m_a / bus;
    for (uint64_t nb : m_fetch_beats) {
      beat += nb;
      const uint64_t end = std::min(b, beat * bus);
      m_through.push_back(static_cast<uint32_t>((end - m_a) / 16));
    }
    m_burst_last.assign(m_fetch_beats.size(), kNone);
    m_burst_first_beat.clear();
    beat = m_a / bus;
    for (uint64_t nb : m_fetch_beats) {
      m_burst_first_beat.push_back(beat);
      beat += nb;
    }
    m_arrival.assign(n, kNone);
    m_dispatch.assign(n, kNone);
    m_next_post = 0;
    m_granted = 0;
    m_nd = 0;
    m_rd_free = 0;
    m_wr_free = 0;
    m_clients = {};
    m_units = {};
    m_queue = {};
    m_order = {};
    m_tokens = {};
  }

  void step_arbiter(uint64_t c) {
    for (int k = 0; k < 5; ++k) {
      Client& cl = m_clients[k];
      if (cl.beats.empty() || cl.eligible > c) {
        continue;
      }
      const uint64_t nb = cl.beats.front();
      cl.beats.pop_front();
      const uint64_t cpb = static_cast<uint64_t>(m_cfg.dram_cycles_per_beat);
      const uint64_t first = std::max(c + m_cfg.dram_read_latency_cycles, m_rd_free);
      m_rd_free = first + nb * cpb;
      const uint64_t last = first + (nb - 1) * cpb;
      cl.eligible = c + 1;
      if (k == 0) {
        const size_t burst = m_granted++;
        m_burst_last[burst] = last;
        const uint64_t bus = static_cast<uint64_t>(m_cfg.bus_bytes);
        const uint32_t lo = burst == 0 ? 0 : m_through[burst - 1];
        for (uint32_t i = lo; i < m_through[burst]; ++i) {
          const uint64_t last_byte = m_a + 16ull * i + 15;
          m_arrival[i] = first + (last_byte / bus - m_burst_first_beat[burst]) * cpb;
        }
      } else if (--cl.remaining == 0) {
        m_units[cl.owner].e = last + 1;
      }
      return;  // one grant per cycle
    }
  }

  void step_dispatch(uint64_t c) {
    const size_t i = m_nd;
    if (i >= m_insns.size() || m_arrival[i] == kNone || c < m_arrival[i] + 1 ||
        (i > 0 && c < m_dispatch[i - 1] + 1)) {
      return;
    }
    const int s = m_insns[i].stage();
    if (m_queue[s].seen(c) >= static_cast<uint64_t>(m_cfg.insn_queue_depth)) {
      return;
    }
    m_dispatch[i] = c;
    m_queue[s].push.push_back(c);
    m_order[s].push_back(i);
    ++m_nd;
  }

  void step_fetch_post(uint64_t c) {
    const size_t k = m_next_post;
    if (k >= m_fetch_beats.size()) {
      return;
    }
    if (k >= 1 && (m_granted < k || c < m_burst_last[k - 1])) {
      return;
    }
    if (k >= 2) {
      const uint32_t need = m_through[k - 2];
      if (m_nd < need || (need > 0 && c < m_dispatch[need - 1])) {
        return;
      }
    }
    m_clients[0].beats.push_back(m_fetch_beats[k]);
    m_clients[0].eligible = c + 1;
    ++m_next_post;
  }

  void finish_insn(int s, uint64_t c) {
    Unit& u = m_units[s];
    const Insn& i = m_insns[u.insn];
    m_result.end[u.insn] = c;
    for (const auto& [flag, q] :
         {std::pair{i.push_prev_dep, kPushPrevQ[s]}, std::pair{i.push_next_dep, kPushNextQ[s]}}) {
      if (flag) {
        m_tokens[q].push.push_back(c);
      }
    }
    u.busy = false;
    u.free_at = c + 1;
    if (i.opcode == kOpFinish) {
      m_result.finished = true;
      m_result.cycles = c + 1;
    }
  }

  void step_unit(int s, uint64_t c) {
    Unit& u = m_units[s];
    if (u.busy) {
      if (u.e == c) {
        finish_insn(s, c);
      }
      return;
    }
    if (c < u.free_at) {
      return;
    }
    // Head instruction: dispatched before c and not started.
    const size_t started = m_queue[s].pop.size();
    if (started >= m_order[s].size() || m_dispatch[m_order[s][started]] >= c) {
      return;
    }
    const size_t idx = m_order[s][started];
    const Insn& i = m_insns[idx];
    const uint64_t tdepth = static_cast<uint64_t>(m_cfg.dep_queue_depth);
    if ((i.pop_prev_dep && m_tokens[kPopPrevQ[s]].seen(c) == 0) ||
        (i.pop_next_dep && m_tokens[kPopNextQ[s]].seen(c) == 0) ||
        (i.push_prev_dep && m_tokens[kPushPrevQ[s]].seen(c) >= tdepth) ||
        (i.push_next_dep && m_tokens[kPushNextQ[s]].seen(c) >= tdepth)) {
      return;
    }
    m_queue[s].pop.push_back(c);
    if (i.pop_prev_dep) {
      m_tokens[kPopPrevQ[s]].pop.push_back(c);
    }
    if (i.pop_next_dep) {
      m_tokens[kPopNextQ[s]].pop.push_back(c);
    }
    m_result.start[idx] = c;
    u.busy = true;
    u.insn = idx;
    u.e = duration(s, i, c);
    if (u.e == c) {
      finish_insn(s, c);
    }
  }

  // End cycle of an instruction started in S, or kNone while its DMA is not fully granted.
  uint64_t duration(int s, const Insn& i, uint64_t c) {
    switch (i.opcode) {
      case kOpLoad: {
        if (i.x_size == 0) {
          return c;
        }
        const uint64_t p = ref_pad(i);
        const std::vector<uint64_t> bursts = ref_insn_bursts(m_cfg, i);
        if (bursts.empty()) {
          return c + p;
        }
        const int client = i.memory_type == kMemUop   ? 1
                           : i.memory_type == kMemInp ? 2
                           : i.memory_type == kMemWgt ? 3
                                                      : 4;
        Client& cl = m_clients[client];
        cl.beats.assign(bursts.begin(), bursts.end());
        cl.eligible = c + p + 1;
        cl.owner = s;
        cl.remaining = bursts.size();
        return kNone;
      }
      case kOpStore: {
        if (i.x_size == 0) {
          return c;
        }
        const uint64_t cpb = static_cast<uint64_t>(m_cfg.dram_cycles_per_beat);
        const std::vector<uint64_t> bursts = ref_insn_bursts(m_cfg, i);
        uint64_t resp = c;
        for (size_t k = 0; k < bursts.size(); ++k) {
          const uint64_t first = std::max(c + 1 + k + 1, m_wr_free);
          m_wr_free = first + bursts[k] * cpb;
          resp = first + (bursts[k] - 1) * cpb + m_cfg.dram_write_latency_cycles;
        }
        return resp;
      }
      case kOpGemm:
      case kOpAlu:
        return ref_compute_end(i, c);
      default:
        return c;  // FINISH
    }
  }

  // Queue ids: l2g 0, g2l 1, s2g 2, g2s 3 (per stage, as in the contract).
  static constexpr int kPopPrevQ[4] = {0, 0, 0, 3};
  static constexpr int kPopNextQ[4] = {0, 1, 2, 0};
  static constexpr int kPushPrevQ[4] = {0, 0, 1, 2};
  static constexpr int kPushNextQ[4] = {0, 0, 3, 0};

  const HwConfig& m_cfg;
  const std::vector<Insn>& m_insns;
  uint64_t m_a;
  RefRun m_result;
  std::vector<uint64_t> m_fetch_beats, m_burst_first_beat, m_burst_last;
  std::vector<uint32_t> m_through;
  std::vector<uint64_t> m_arrival, m_dispatch;
  size_t m_next_post = 0, m_granted = 0, m_nd = 0;
  uint64_t m_rd_free = 0, m_wr_free = 0;
  std::array<Client, 5> m_clients;
  std::array<Unit, 4> m_units;
  std::array<Timed, 4> m_queue;  // per stage: dispatches (push) and starts (pop)
  std::array<std::vector<size_t>, 4> m_order{};
  std::array<Timed, 4> m_tokens;
};

}  // namespace vta::cycletest
