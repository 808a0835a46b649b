// DramTarget: the DRAM behind VTA's memory port, as a TLM-2.0 target (loosely timed,
// b_transport). It moves the payload bytes to/from the simulated physical memory (vta::Dram)
// and times the burst with DramTiming (sim/README.md section 2). The initiator calls it in the
// cycle the burst is granted (sc_time_stamp() + delay, one cycle = kCycleTime); the target
// returns delay = time to the last read beat / to the write response and fills MemTimingExt.
// Any other memory model plugged into the socket has to fill MemTimingExt the same way.
#pragma once

#include <cstdint>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "vta/sim/cycle/dram_timing.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"

namespace vta::cycle {

// One clock cycle of the core in SystemC time (the clock frequency only matters in reports).
inline const sc_core::sc_time& cycle_time() {
  static const sc_core::sc_time t(1, sc_core::SC_NS);
  return t;
}
// Current SystemC time in whole cycles.
inline uint64_t now_cycle() {
  return sc_core::sc_time_stamp().value() / cycle_time().value();
}
inline sc_core::sc_time cycles(uint64_t n) {
  return cycle_time() * static_cast<double>(n);
}

// Burst timing returned by the memory model (absolute cycles).
struct MemTimingExt : tlm::tlm_extension<MemTimingExt> {
  uint32_t beats = 0;     // bus beats of the burst (0: the target did not fill the extension)
  uint64_t first = 0;     // cycle of the first data beat
  uint64_t last = 0;      // cycle of the last data beat
  uint64_t response = 0;  // writes: cycle of the write response (reads: = last)
  uint32_t interval = 1;  // cycles between beats

  tlm::tlm_extension_base* clone() const override { return new MemTimingExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const MemTimingExt&>(other);
  }
};

// The core side of the memory port, handed to a user-supplied memory model (see
// CycleBackend's MemoryBinder): bind `socket` to a TLM-2.0 target that moves the payload bytes
// and fills MemTimingExt (or at least returns the delay to the last beat / write response).
struct MemoryPort {
  tlm::tlm_initiator_socket<>& socket;
  const HwConfig& cfg;
  Dram& dram;
};

class DramTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DramTarget> socket;

  DramTarget(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram);

  DramTiming& timing() { return m_timing; }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);

  const HwConfig& m_cfg;
  Dram& m_dram;
  DramTiming m_timing;
};

}  // namespace vta::cycle
