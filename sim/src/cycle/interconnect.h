// Interconnect: the one path from several VTA cores to the shared DRAM (docs/multicore.md).
// Each core's memory interface binds its TLM-2.0 initiator socket to one target socket here;
// one initiator socket leads to the memory model. A request is one TLM transaction: one burst
// of one core, read or write. Reads and writes travel on separate channels (as AXI's read and
// write channels). On its channel a burst of B beats holds the link for
// ceil(B * bus bytes / INTERCONNECT_BYTES_PER_CYCLE) cycles; a request that reaches the
// interconnect in cycle g is granted in s = max(g, the cycle its channel is free), requests being
// served in the order they arrive: those of one cycle in core order (each core's memory
// interface sends its reads k delta cycles into their cycle), the store unit's write bursts as
// they are handed over, ahead of their cycles. It reaches the memory model
// INTERCONNECT_LATENCY_CYCLES after s; its data beats and write response come back as much
// later. Contention of a core: the cycles its requests waited for the channel beyond what its
// own previous burst on that channel held it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta::cycle {

// What one core sent through the interconnect since the last clear.
struct InterconnectCoreStats {
  uint64_t requests = 0;           // bursts (reads and writes)
  uint64_t bytes = 0;              // payload bytes
  uint64_t contention_cycles = 0;  // cycles waited behind other cores' bursts
};

class Interconnect : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Interconnect> cores;  // bound once per core
  tlm_utils::simple_initiator_socket<Interconnect> memory;

  // `cfg`: the system config (INTERCONNECT_* keys, bus width, CORES).
  Interconnect(sc_core::sc_module_name name, const HwConfig& cfg);

  // Both channels free from absolute cycle `base` (the start of a run).
  void reset(uint64_t base);
  const InterconnectCoreStats& core_stats(int core) const { return m_stats.at(core); }
  void clear_stats();

 private:
  // One request on its way to the memory model.
  struct Pending {
    int core = 0;
    uint32_t beats = 0;
    tlm::tlm_generic_payload* payload = nullptr;
    sc_core::sc_time delay;  // to its last beat / write response
  };
  // One direction (read or write) of the link.
  struct Channel {
    uint64_t free = 0;              // first cycle the link is free
    std::vector<uint64_t> own_end;  // per core: end of its last burst's hold
  };

  void b_transport(int core, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void forward(Pending& q, uint64_t s);
  // Grants core `core` a hold of `beats` beats on `ch` for a request arriving in cycle g.
  uint64_t grant(Channel& ch, int core, uint32_t beats, uint64_t g);

  uint64_t m_latency;
  uint64_t m_bytes_per_cycle;
  uint64_t m_bus_bytes;
  std::array<Channel, 2> m_channels;  // 0 = read, 1 = write
  std::vector<InterconnectCoreStats> m_stats;
};

// Adds the system's counters of docs/multicore.md to `stats` (coreK.cycles,
// coreK.dram_contention_cycles, coreK.interconnect_bursts), core k having run `cycles[k]`
// cycles (0 for a core without a program); the cycle and rtl backends name them alike.
void add_system_counters(Stats& stats, const Interconnect& ic, const std::vector<double>& cycles);

}  // namespace vta::cycle
