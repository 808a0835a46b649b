#include "vta/sim/cycle/dram_target.h"

namespace vta::cycle {

DramTarget::DramTarget(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram)
    : MemoryTarget(name, dram), socket("socket"), m_cfg(cfg), m_timing(cfg) {
  socket.register_b_transport(this, &DramTarget::b_transport);
}

void DramTarget::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  serve(p, delay, m_cfg.bus_bytes);
}

}  // namespace vta::cycle
