#include "vta/sim/cycle/dram_target.h"

#include <cstring>

namespace vta::cycle {

DramTarget::DramTarget(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram)
    : MemoryTarget(name), socket("socket"), m_cfg(cfg), m_dram(dram), m_timing(cfg) {
  socket.register_b_transport(this, &DramTarget::b_transport);
}

void DramTarget::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t addr = p.get_address();
  const uint32_t len = p.get_data_length();
  uint8_t* host = m_dram.checked_ptr(addr, len);
  if (host == nullptr || len == 0) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const uint64_t bus = static_cast<uint64_t>(m_cfg.bus_bytes);
  const auto beats = static_cast<uint32_t>((addr + len + bus - 1) / bus - addr / bus);
  const uint64_t grant = (sc_core::sc_time_stamp() + delay).value() / cycle_time().value();
  MemTimingExt* ext = nullptr;
  p.get_extension(ext);
  uint64_t done = 0;
  if (p.is_read()) {
    std::memcpy(p.get_data_ptr(), host, len);
    const ReadBeats r = m_timing.read(grant, beats);
    done = r.last;
    if (ext != nullptr) {
      *ext = MemTimingExt{};
      ext->beats = beats;
      ext->first = r.first;
      ext->last = ext->response = r.last;
      ext->interval = r.interval;
    }
  } else if (p.is_write()) {
    std::memcpy(host, p.get_data_ptr(), len);
    const WriteBeats w = m_timing.write(grant, beats);
    done = w.response;
    if (ext != nullptr) {
      ext->beats = beats;
      ext->first = w.first;
      ext->last = w.last;
      ext->response = w.response;
      ext->interval = w.interval;
    }
  } else {
    p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  delay = cycles(done - grant) + delay;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace vta::cycle
