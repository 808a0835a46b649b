// DramTarget: the DRAM behind VTA's memory port as the timing contract fixes it (sim/README.md
// section 2), registered as the memory model "fixed". A TLM-2.0 target (loosely timed,
// b_transport; the protocol is described in memory_target.h) that moves the payload bytes
// to/from the simulated physical memory (vta::Dram) and times each burst with DramTiming:
// fixed latencies, one read and one write data channel.
#pragma once

#include <cstdint>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "vta/sim/cycle/dram_timing.h"
#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"

namespace vta::cycle {

class DramTarget : public MemoryTarget {
 public:
  tlm_utils::simple_target_socket<DramTarget> socket;

  DramTarget(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram);

  DramTiming& timing() { return m_timing; }

  tlm::tlm_target_socket<>& target_socket() override { return socket; }
  void reset(uint64_t base_cycle) override { m_timing.reset(base_cycle); }
  WriteBeats time_write(uint64_t /*addr*/, uint32_t beats, uint64_t grant) override {
    return m_timing.write(grant, beats);
  }
  ReadBeats time_read(uint64_t /*addr*/, uint32_t beats, uint64_t grant) override {
    return m_timing.read(grant, beats);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);

  const HwConfig& m_cfg;
  DramTiming m_timing;
};

}  // namespace vta::cycle
