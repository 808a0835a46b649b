// FetchUnit: reads the instruction stream through the memory port (read client 0) in bursts
// with a two-burst ping-pong buffer, decodes each instruction and dispatches at most one per
// cycle to the instruction queue of its unit, stalling while that queue is full.
// Timing: sim/README.md section 3.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "core_shared.h"

namespace vta::cycle {

struct FetchStats {
  uint64_t active_cycles = 0;            // cycles from run start to the last dispatch, inclusive
  uint64_t stall_queue_full_cycles = 0;  // cycles the head instruction waited for queue room
  uint64_t dispatched = 0;               // instructions dispatched
};

class FetchUnit : public sc_core::sc_module {
 public:
  FetchUnit(sc_core::sc_module_name name, CoreShared& core);

  const FetchStats& stats() const { return m_stats; }
  void clear_stats() { m_stats = FetchStats{}; }
  // Index of the next instruction to dispatch (for deadlock reports).
  uint32_t next_index() const { return m_next; }

 private:
  void requester();
  void dispatcher();
  void on_grant(const ReadRequest& req, const ReadBeats& beats);

  CoreShared& m_core;
  IsaCodec m_codec;  // the fetch decoder
  FetchStats m_stats;
  // Per run.
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
