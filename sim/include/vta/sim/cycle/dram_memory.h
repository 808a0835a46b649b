// DramMemory: the memory model "dram", a TLM-2.0 target (loosely timed, b_transport; the
// protocol is in memory_target.h) that moves the payload bytes to/from the simulated physical
// memory and times each burst with a DramController on the DRAM's own clock (tCK), behind an
// interconnect of DRAM_INTERCONNECT_NS each way. The core side stays AXI-like: one read data
// channel and one write data channel, one beat per core cycle. sim/DRAM.md.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/dram_controller.h"

namespace vta::cycle {

class DramMemory : public MemoryTarget {
 public:
  tlm_utils::simple_target_socket<DramMemory> socket;

  DramMemory(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram);

  tlm::tlm_target_socket<>& target_socket() override { return socket; }
  void reset(uint64_t base_cycle) override;
  WriteBeats time_write(uint64_t addr, uint32_t beats, uint64_t grant) override;
  void add_counters(TimedCounters& out) const override;
  void reset_counters() override;

  ReadBeats time_read(uint64_t addr, uint32_t beats, uint64_t grant) override;
  DramController& controller() { return m_ctrl; }
  // The DRAM commands of the run (ACT, PRE, READ, WRITE, REF) for the trace's DRAM track, at
  // most kMaxTraceCommands per run inside the trace window (then one event says how many more there
  // were).
  static constexpr size_t kMaxTraceCommands = 100000;
  void record_trace_events(bool on) override { m_ctrl.set_command_log(on ? &m_commands : nullptr); }
  void take_trace_events(std::vector<MemoryTraceEvent>& out,
                         const std::function<bool(uint64_t)>& keep) override;
  // The first core cycle (absolute) at or after the end of DRAM cycle `ck`, data back at the
  // core: the interconnect latency added.
  uint64_t core_cycle_back(int64_t ck) const;
  // The DRAM cycle at which something the core sends in cycle `c` reaches the controller.
  int64_t dram_cycle_at(uint64_t c) const;

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint64_t command_cycle(const DramCommand& c) const;

  const HwConfig& m_cfg;
  DramController m_ctrl;
  std::vector<DramCommand> m_commands;
  int64_t m_core_ps;  // one core cycle, ps (CLOCK_MHZ)
  int64_t m_link_ps;  // interconnect, one way, ps
  uint64_t m_base = 0;
  uint64_t m_read_free = 0, m_write_free = 0;  // core-side data channels
  // DRAM_REQUEST_ORDER "out_of_order": one read data channel per requester (core), each in
  // order, so that a core's read the DRAM served first is not held behind another core's.
  std::vector<uint64_t> m_read_free_of;
  size_t m_requester = 0;    // of the burst being served (RequesterExt)
  uint64_t m_resp_free = 0;  // core-side write response channel
  TimedCounters::Dram m_stats;
};

}  // namespace vta::cycle
