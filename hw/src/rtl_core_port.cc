#include "rtl_core_port.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "vta/sim/cycle/dram_timing.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

namespace vta::rtl {

namespace {

// Cycles between two looks of the watchdog at the core's progress counters.
constexpr uint64_t kWatchdogCheck = 1024;

// What only moves when the core gets work done: instructions finished, bytes a DMA unit
// started, GEMM/ALU micro-ops issued (inside an instruction too, so a long loop is progress).
// (Busy, stall and fetch cycle counters grow while it waits.)
uint64_t progress_fingerprint(const CoreStatus& st) {
  uint64_t f = st.inp_load_nbytes + st.wgt_load_nbytes + st.acc_load_nbytes + st.uop_load_nbytes +
               st.out_store_nbytes + st.gemm_counter + st.alu_counter + st.alu_active_cycles +
               st.uops_issued;
  for (uint32_t n : st.unit_insns) {
    f += n;
  }
  return f;
}

// The read client of a burst tag (the RTL's arbiter numbers clients as ReadClient).
int read_client(uint8_t tag) {
  return tag % kNumReadClients;
}

void add_latency(TimedCounters::Traffic& t, uint64_t cycles) {
  t.latency_sum += cycles;
  t.latency_max = std::max(t.latency_max, cycles);
}

// The write bursts of STORE `i` by the contract (sim/README.md sections 2 and 4): each row's
// byte range cut by the burst rule, as the cycle model's store unit cuts them.
std::vector<cycle::Burst> store_bursts(const HwConfig& cfg, const Insn& i) {
  std::vector<cycle::Burst> bursts;
  if (i.x_size == 0) {
    return bursts;  // NOP
  }
  const uint64_t e_bytes = static_cast<uint64_t>(cfg.out_elem_bytes);
  const uint64_t row_bytes = i.x_size * e_bytes;
  for (uint64_t y = 0; y < i.y_size; ++y) {
    const uint64_t a = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e_bytes;
    cycle::split_bursts(cfg, a, a + row_bytes, bursts);
  }
  return bursts;
}

}  // namespace

RtlCorePort::RtlCorePort(const HwConfig& cfg, Dram& dram, RtlModel& model,
                         tlm::tlm_initiator_socket<>& socket, cycle::MemoryTarget* direct)
    : m_cfg(cfg), m_dram(&dram), m_model(&model), m_socket(&socket), m_direct(direct) {}

void RtlCorePort::rebind(Dram& dram, RtlModel& model) {
  m_dram = &dram;
  m_model = &model;
}

void RtlCorePort::begin(uint32_t insn_phys, uint32_t insn_count, const LoadedProgram* program) {
  ending = Ending::kFinished;
  run_cycles = 0;
  quiet_cycles = 0;
  read.fill(TimedCounters::Traffic{});
  write = TimedCounters::Traffic{};
  m_program = program;
  m_next_store = 0;
  m_last_progress = 0;
  m_fingerprint = 0;
  m_hung = false;
  m_stuck_cycles = 0;
  m_reads.clear();
  m_writes.clear();
  m_resps.clear();
  m_posted.clear();
  m_model->start(insn_phys, insn_count);
}

void RtlCorePort::fall(uint64_t abs, uint64_t c) {
  WriteBurst* wb = nullptr;
  m_in = memory_inputs(abs, wb);
  m_model->fall(m_in, m_out);
  serve_requests(abs, c, m_in, m_out, wb);
}

bool RtlCorePort::rise(uint64_t c) {
  m_model->rise(m_out);
  watch_progress(c, m_in, m_out);
  run_cycles = c + 1;
  return run_ended(m_out);
}

// What the memory drives in cycle `abs`; `wb` is set to the write burst that takes beats next.
MemIn RtlCorePort::memory_inputs(uint64_t abs, WriteBurst*& wb) {
  MemIn in;
  if (!m_reads.empty()) {
    ReadBurst& r = m_reads.front();
    if (r.first + static_cast<uint64_t>(r.next) * r.interval == abs) {
      in.rd_data_valid = true;
      in.rd_data_tag = r.tag;
      in.rd_data = r.data.data() + static_cast<size_t>(r.next) * bus_bytes();
    }
  }
  for (auto& w : m_writes) {
    if (w.next < w.beats) {
      wb = &w;
      break;
    }
  }
  if (wb != nullptr && wb->first + static_cast<uint64_t>(wb->next) * wb->interval == abs) {
    in.wr_data_take = true;
  }
  if (!m_resps.empty() && m_resps.front() == abs) {
    in.wr_resp = true;
    m_resps.pop_front();
  }
  // The core takes one read beat and one write response per cycle: a memory model that
  // times two in one cycle (or one in the past) would leave the core waiting forever.
  const bool read_missed =
      !m_reads.empty() &&
      m_reads.front().first + uint64_t{m_reads.front().next} * m_reads.front().interval < abs;
  if (read_missed || (!m_resps.empty() && m_resps.front() < abs)) {
    throw Error(fmt::format(
        "rtl backend: the memory model timed a read beat or write response before cycle {} "
        "that the core could not take (one of each per cycle, in order)",
        abs));
  }
  return in;
}

// Acts on what the core did in cycle `c` (absolute `abs`): beats delivered and taken, bursts
// requested. A write burst reaches the memory before the read of the same cycle, as in the
// cycle model, whose store unit posts its bursts in the cycle before their first grant.
void RtlCorePort::serve_requests(uint64_t abs, uint64_t c, const MemIn& in, const MemOut& out,
                                 WriteBurst* wb) {
  if (in.rd_data_valid) {
    ReadBurst& r = m_reads.front();
    if (++r.next == r.beats) {
      m_reads.pop_front();
    }
  }
  if (in.wr_data_take) {
    take_write_beat(*wb, out, c);
  }
  if (out.wr_req) {
    post_write(abs, out);
  }
  if (out.rd_req) {
    const uint64_t last = grant_read(abs, out);
    TimedCounters::Traffic& t = read[static_cast<size_t>(read_client(out.rd_tag))];
    ++t.bursts;
    t.beats += out.rd_beats;
    add_latency(t, last - abs);
  }
}

// The watchdog: memory traffic counts as progress at once, the core's counters every
// kWatchdogCheck cycles (reading them costs more than a cycle).
void RtlCorePort::watch_progress(uint64_t c, const MemIn& in, const MemOut& out) {
  if (watchdog_cycles == 0) {
    return;
  }
  if (in.rd_data_valid || in.wr_data_take || in.wr_resp || out.rd_req || out.wr_req) {
    m_last_progress = c;
  }
  if (c % std::min(kWatchdogCheck, watchdog_cycles) == 0) {
    const uint64_t f = progress_fingerprint(m_model->status());
    if (f != m_fingerprint) {
      m_fingerprint = f;
      m_last_progress = c;
    } else if (c - m_last_progress >= watchdog_cycles) {
      quiet_cycles = c - m_last_progress;
      m_hung = true;
    }
  }
}

bool RtlCorePort::run_ended(const MemOut& out) {
  if (out.error) {
    ending = Ending::kRtlError;
    return true;
  }
  if (out.finish) {
    ending = Ending::kFinished;
    return true;
  }
  m_stuck_cycles = out.stuck ? m_stuck_cycles + 1 : 0;
  if (m_stuck_cycles >= 2) {
    ending = Ending::kStuck;
    return true;
  }
  if (wait_cycles != 0 && run_cycles >= wait_cycles) {
    ending = Ending::kTimeout;
    return true;
  }
  if (m_hung) {
    ending = Ending::kNoProgress;
    return true;
  }
  return false;
}

// One burst through the socket, granted in absolute cycle `grant`; false if the memory refused
// it (outside allocated memory). A timing-only write has every byte disabled
// (memory_target.h), so it moves nothing.
bool RtlCorePort::transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, size_t bytes,
                            uint64_t grant, bool timing_only, cycle::MemTimingExt& ext) {
  static unsigned char disabled = TLM_BYTE_DISABLED;
  tlm::tlm_generic_payload p;
  p.set_command(cmd);
  p.set_address(addr);
  p.set_data_ptr(data);
  p.set_data_length(static_cast<unsigned>(bytes));
  p.set_streaming_width(static_cast<unsigned>(bytes));
  p.set_byte_enable_ptr(timing_only ? &disabled : nullptr);
  p.set_byte_enable_length(timing_only ? 1 : 0);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  p.set_extension(&ext);
  sc_core::sc_time delay = cycle::cycles(grant - cycle::now_cycle());
  (*m_socket)->b_transport(p, delay);
  p.clear_extension(&ext);
  return p.get_response_status() == tlm::TLM_OK_RESPONSE;
}

// Returns the cycle of the burst's last beat.
uint64_t RtlCorePort::grant_read(uint64_t abs, const MemOut& out) {
  const size_t bytes = static_cast<size_t>(out.rd_beats) * bus_bytes();
  ReadBurst r;
  r.tag = out.rd_tag;
  r.beats = out.rd_beats;
  r.data.resize(bytes);
  cycle::MemTimingExt ext;
  if (!transport(tlm::TLM_READ_COMMAND, out.rd_addr, r.data.data(), bytes, abs, false, ext)) {
    throw ProgramError(fmt::format("{} read burst [{:#x}, {:#x}) is outside allocated memory",
                                   kReadClientName[read_client(out.rd_tag)], out.rd_addr,
                                   out.rd_addr + bytes));
  }
  r.first = ext.first;
  r.interval = ext.interval;
  m_reads.push_back(std::move(r));
  return ext.last;
}

// The memory takes the store unit's next beat of `wb`; a complete burst is written to DRAM.
void RtlCorePort::take_write_beat(WriteBurst& wb, const MemOut& out, uint64_t c) {
  if (!out.wr_data_valid) {
    throw Error(
        fmt::format("rtl backend: the store unit had no data beat ready in cycle {}"
                    " (RTL timing bug)",
                    c));
  }
  const size_t at = static_cast<size_t>(wb.next) * bus_bytes();
  std::memcpy(wb.data.data() + at, out.wr_data, bus_bytes());
  for (size_t k = 0; k < bus_bytes(); ++k) {
    wb.strb[at + k] = ((out.wr_strb >> k) & 1U) != 0;
  }
  if (++wb.next == wb.beats) {
    write_strobed(wb);
    m_writes.pop_front();
  }
}

// Writes the strobed bytes of a complete burst (a contiguous range: one row's part).
void RtlCorePort::write_strobed(const WriteBurst& wb) {
  size_t lo = 0;
  size_t hi = wb.data.size();
  while (lo < hi && !wb.strb[lo]) {
    ++lo;
  }
  while (hi > lo && !wb.strb[hi - 1]) {
    --hi;
  }
  if (lo == hi) {
    return;
  }
  uint8_t* host = m_dram->checked_ptr(wb.addr + lo, hi - lo);
  if (host == nullptr) {
    throw ProgramError(
        fmt::format("store unit: write burst [{:#x}, {:#x}) is outside allocated memory",
                    wb.addr + lo, wb.addr + hi));
  }
  std::memcpy(host, wb.data.data() + lo, hi - lo);
}

void RtlCorePort::post_write(uint64_t abs, const MemOut& out) {
  ++write.bursts;
  write.beats += out.wr_beats;
  const cycle::WriteBeats wt = write_timing(abs, out);
  add_latency(write, wt.response - abs);
  WriteBurst w;
  w.addr = out.wr_addr;
  w.first = wt.first;
  w.interval = wt.interval;
  w.beats = out.wr_beats;
  w.data.resize(static_cast<size_t>(out.wr_beats) * bus_bytes());
  w.strb.resize(w.data.size());
  m_writes.push_back(std::move(w));
  m_resps.push_back(wt.response);
}

// The timing of the write burst the store requests in cycle `abs`.
cycle::WriteBeats RtlCorePort::write_timing(uint64_t abs, const MemOut& out) {
  if (m_direct != nullptr) {
    return m_direct->time_write(out.wr_addr, out.wr_beats, abs);
  }
  if (m_posted.empty()) {
    post_next_store(abs);
  }
  const PostedWrite pw = m_posted.front();
  m_posted.pop_front();
  if (pw.grant != abs || pw.addr != out.wr_addr || pw.beats != out.wr_beats) {
    throw Error(fmt::format(
        "rtl backend: the store unit requested {} beats at {:#x} in cycle {}; the contract's "
        "next burst is {} beats at {:#x} in cycle {} (RTL timing bug)",
        out.wr_beats, out.wr_addr, abs, pw.beats, pw.addr, pw.grant));
  }
  cycle::WriteBeats wt;
  wt.first = pw.timing.first;
  wt.last = pw.timing.last;
  wt.response = pw.timing.response;
  wt.interval = pw.timing.interval;
  return wt;
}

// The first request of the next STORE with bursts, in cycle `abs`: all its bursts go to the
// interconnect now, burst k granted in abs + k (sim/README.md section 4), as the cycle model's
// store unit posts them when the instruction starts.
void RtlCorePort::post_next_store(uint64_t abs) {
  const std::vector<uint32_t>& stores = m_program->per_stage[kStageStore];
  while (m_next_store < stores.size()) {
    const std::vector<cycle::Burst> bursts =
        store_bursts(m_cfg, m_program->insns[stores[m_next_store++]]);
    for (size_t k = 0; k < bursts.size(); ++k) {
      const cycle::Burst& b = bursts[k];
      m_scratch.resize(std::max<size_t>(m_scratch.size(), b.bytes));
      PostedWrite pw;
      pw.grant = abs + k;
      pw.addr = b.addr / bus_bytes() * bus_bytes();
      pw.beats = b.beats;
      if (!transport(tlm::TLM_WRITE_COMMAND, b.addr, m_scratch.data(), b.bytes, pw.grant, true,
                     pw.timing)) {
        throw ProgramError(
            fmt::format("store unit: write burst [{:#x}, {:#x}) is outside allocated memory",
                        b.addr, b.addr + b.bytes));
      }
      m_posted.push_back(pw);
    }
    if (!bursts.empty()) {
      return;
    }
  }
  throw Error(fmt::format(
      "rtl backend: the store unit requested a write burst in cycle {} after the last STORE "
      "of its program (RTL bug)",
      abs));
}

}  // namespace vta::rtl
