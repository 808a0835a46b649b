// FetchUnit: reads the instruction stream through the memory interface (read client fetch) in
// bursts with a two-burst ping-pong buffer and dispatches at most one instruction per cycle to
// the instruction queue of its unit (the routing of the loaded program), stalling while that
// queue is full. Timing: sim/README.md section 3.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "unit_ports.h"

namespace vta::cycle {

struct FetchStats {
  uint64_t active_cycles = 0;            // cycles from run start to the last dispatch, inclusive
  uint64_t stall_queue_full_cycles = 0;  // cycles the head instruction waited for queue room
  uint64_t dispatched = 0;               // instructions dispatched
};

class FetchUnit : public sc_core::sc_module {
 public:
  FetchUnit(sc_core::sc_module_name name, const FetchPorts& ports);

  const FetchStats& stats() const { return m_stats; }
  void clear_stats() { m_stats = FetchStats{}; }
  // Index of the next instruction to dispatch (for deadlock reports).
  uint32_t next_index() const { return m_next; }
  // Frees the fetch buffer (the backend is going away).
  // Frees the per-run buffers (each run sizes them again).
  void release_storage() {
    std::vector<uint8_t>().swap(m_fetched);
    std::vector<Burst>().swap(m_bursts);
    std::vector<uint32_t>().swap(m_insns_through);
    std::vector<uint64_t>().swap(m_burst_last);
    std::vector<uint64_t>().swap(m_arrival);
    std::vector<uint64_t>().swap(m_dispatch);
  }

 private:
  void requester();
  void dispatcher();
  void on_grant(const ReadRequest& req, const ReadBeats& beats);

  const FetchPorts m_ports;
  FetchStats m_stats;
  // Per run.
  std::vector<uint8_t> m_fetched;  // instruction bytes as delivered by the memory interface
  std::vector<Burst> m_bursts;
  std::vector<uint32_t> m_insns_through;  // per burst: instructions ending in bursts <= k
  size_t m_granted = 0;                   // bursts granted so far
  std::vector<uint64_t> m_burst_last;     // per burst: cycle of its last beat
  std::vector<uint64_t> m_arrival;        // per instruction: cycle its last byte arrives
  uint32_t m_arrived = 0;                 // instructions whose arrival is known
  std::vector<uint64_t> m_dispatch;       // per instruction: dispatch cycle
  uint32_t m_next = 0;                    // next instruction to dispatch
  uint64_t m_run_seen_req = 0, m_run_seen_disp = 0;
  sc_core::sc_event m_arrived_ev, m_dispatched_ev, m_granted_ev;
};

}  // namespace vta::cycle
