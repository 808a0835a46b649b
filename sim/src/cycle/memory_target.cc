#include "vta/sim/cycle/memory_target.h"

#include <cstring>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::cycle {

// Each model's timed file defines its link function (VTA_REGISTER_TIMED_MEMORY_MODEL); calling
// them in find_memory_model keeps every registration in a static link that can look one up.
#define VTA_MEMORY_MODEL(tag) void link_##tag##_timed_memory_model();
#include "vta/sim/memory_models.inc"
#undef VTA_MEMORY_MODEL

namespace {

// Copies the bytes the payload's byte enables leave on (TLM-2.0: the enable array repeats over
// the data); without enables every byte. A write with every byte disabled moves nothing and is
// timed like any write: the rtl glue's timing-only bursts, whose data come later.
void copy_enabled(uint8_t* dst, const uint8_t* src, uint32_t len,
                  const tlm::tlm_generic_payload& p) {
  const unsigned char* be = p.get_byte_enable_ptr();
  const uint32_t be_len = p.get_byte_enable_length();
  if (be == nullptr || be_len == 0) {
    std::memcpy(dst, src, len);
    return;
  }
  for (uint32_t k = 0; k < len; ++k) {
    if (be[k % be_len] == TLM_BYTE_ENABLED) {
      dst[k] = src[k];
    }
  }
}

}  // namespace

void MemoryTarget::serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int bus_bytes) {
  const uint64_t addr = p.get_address();
  const uint32_t len = p.get_data_length();
  uint8_t* host = m_dram->checked_ptr(addr, len);
  if (host == nullptr || len == 0) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const auto bus = static_cast<uint64_t>(bus_bytes);
  const auto beats = static_cast<uint32_t>((addr + len + bus - 1) / bus - addr / bus);
  const uint64_t grant = (sc_core::sc_time_stamp() + delay).value() / cycle_time().value();
  MemTimingExt t;
  t.beats = beats;
  if (p.is_read()) {
    copy_enabled(p.get_data_ptr(), host, len, p);
    const ReadBeats r = time_read(addr, beats, grant);
    t.first = r.first;
    t.last = t.response = r.last;
    t.interval = r.interval;
  } else if (p.is_write()) {
    copy_enabled(host, p.get_data_ptr(), len, p);
    const WriteBeats w = time_write(addr, beats, grant);
    t.first = w.first;
    t.last = w.last;
    t.response = w.response;
    t.interval = w.interval;
  } else {
    p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  MemTimingExt* ext = nullptr;
  p.get_extension(ext);
  if (ext != nullptr) {
    *ext = t;
  }
  delay = cycles(t.response - grant) + delay;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

const MemoryModelEntry& find_memory_model(const std::string& name) {
#define VTA_MEMORY_MODEL(tag) link_##tag##_timed_memory_model();
#include "vta/sim/memory_models.inc"
#undef VTA_MEMORY_MODEL
  const MemoryModelEntry* e = MemoryModelRegistry::instance().find(name);
  if (e == nullptr) {
    throw Error(fmt::format("cycle backend: no memory model named '{}' (registered: {})", name,
                            fmt::join(memory_model_names(), ", ")));
  }
  return *e;
}

}  // namespace vta::cycle
