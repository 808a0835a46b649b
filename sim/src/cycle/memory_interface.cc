#include "memory_interface.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::cycle {

MemoryInterface::MemoryInterface(sc_core::sc_module_name name)
    : sc_core::sc_module(name), socket("socket") {
  SC_HAS_PROCESS(MemoryInterface);
  SC_THREAD(arbiter);
  m_payload.set_extension(&m_ext);
}

void MemoryInterface::reset() {
  for (auto& c : m_clients) {
    c.pending.clear();
    c.done.cancel();
  }
  m_kick.cancel();
}

void MemoryInterface::clear_stats() {
  for (auto& c : m_clients) {
    c.stats = MemClientStats{};
  }
  m_write_stats = MemClientStats{};
}

void MemoryInterface::post_reads(int client, const std::vector<ReadRequest>& reqs,
                                 uint64_t eligible) {
  Client& c = m_clients[client];
  c.pending.assign(reqs.begin(), reqs.end());
  c.eligible = eligible;
  const uint64_t now = now_cycle();
  m_kick.notify(cycles(eligible > now ? eligible - now : 0));
}

MemTimingExt MemoryInterface::transport(tlm::tlm_command cmd, const Burst& b, uint8_t* data,
                                        uint64_t at) {
  m_payload.set_command(cmd);
  m_payload.set_address(b.addr);
  m_payload.set_data_ptr(data);
  m_payload.set_data_length(b.bytes);
  m_payload.set_streaming_width(b.bytes);
  m_payload.set_byte_enable_ptr(nullptr);
  m_payload.set_dmi_allowed(false);
  m_payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  m_ext = MemTimingExt{};
  sc_core::sc_time delay = cycles(at - now_cycle());
  socket->b_transport(m_payload, delay);
  if (m_payload.get_response_status() != tlm::TLM_OK_RESPONSE) {
    throw ProgramError(fmt::format("memory interface: {} burst of {} bytes at {:#x} failed ({})",
                                   cmd == tlm::TLM_READ_COMMAND ? "read" : "write", b.bytes, b.addr,
                                   m_payload.get_response_string()));
  }
  MemTimingExt t = m_ext;
  if (t.beats == 0) {
    // A memory model that does not know the extension: assume back-to-back beats that end at
    // the returned delay.
    const uint64_t done = (sc_core::sc_time_stamp() + delay).value() / cycle_time().value();
    t.beats = b.beats;
    t.interval = 1;
    t.last = t.response = done;
    t.first = done - (b.beats - 1);
  }
  return t;
}

void MemoryInterface::wait_rank() const {
  for (int k = 0; k < m_rank; ++k) {
    sc_core::wait(sc_core::SC_ZERO_TIME);
  }
}

void MemoryInterface::arbiter() {
  for (;;) {
    sc_core::wait(m_kick);
    wait_rank();
    const uint64_t c = now_cycle();
    for (int k = 0; k < kNumReadClients; ++k) {
      Client& cl = m_clients[k];
      if (cl.pending.empty() || cl.eligible > c) {
        continue;
      }
      const ReadRequest req = cl.pending.front();
      cl.pending.pop_front();
      MemTimingExt t;
      try {
        t = transport(tlm::TLM_READ_COMMAND, req.burst, req.dst, c);
      } catch (...) {
        for (Client& other : m_clients) {
          other.pending.clear();
        }
        if (m_on_error) {
          m_on_error(std::current_exception());
        }
        break;
      }
      ReadBeats rb;
      rb.first = t.first;
      rb.last = t.last;
      rb.interval = t.interval;
      cl.last_beat = t.last;
      cl.eligible = c + 1;
      cl.stats.bytes += req.burst.bytes;
      cl.stats.bursts += 1;
      cl.stats.beats += req.burst.beats;
      cl.stats.add_latency(t.last - c);
      if (m_trace != nullptr && m_trace->tracing()) {
        m_trace->span_named(
            4, t.first, t.last,
            fmt::format("{} {} beats @{:#x}", kReadClientName[k], req.burst.beats, req.burst.addr));
      }
      if (cl.on_grant) {
        cl.on_grant(req, rb);
      }
      if (cl.pending.empty()) {
        cl.done.notify(sc_core::SC_ZERO_TIME);
      }
      break;  // one grant per cycle
    }
    uint64_t next = std::numeric_limits<uint64_t>::max();
    for (const Client& cl : m_clients) {
      if (!cl.pending.empty()) {
        next = std::min(next, std::max(cl.eligible, c + 1));
      }
    }
    if (next != std::numeric_limits<uint64_t>::max()) {
      m_kick.notify(cycles(next - c));
    }
  }
}

uint64_t MemoryInterface::write_bursts(const std::vector<Burst>& bursts,
                                       const std::vector<uint8_t*>& data, uint64_t first_grant) {
  uint64_t last = first_grant;
  for (size_t k = 0; k < bursts.size(); ++k) {
    const MemTimingExt t = transport(tlm::TLM_WRITE_COMMAND, bursts[k], data[k], first_grant + k);
    last = t.response;
    if (m_trace != nullptr && m_trace->tracing()) {
      m_trace->span_named(5, t.first, t.last,
                          fmt::format("store {} beats @{:#x}", bursts[k].beats, bursts[k].addr));
    }
    m_write_stats.bytes += bursts[k].bytes;
    m_write_stats.bursts += 1;
    m_write_stats.beats += bursts[k].beats;
    m_write_stats.add_latency(t.response - (first_grant + k));
  }
  return last;
}

}  // namespace vta::cycle
