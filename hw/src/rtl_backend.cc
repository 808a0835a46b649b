#include "vta/hw/rtl_backend.h"

#include <cstring>
#include <deque>
#include <exception>
#include <utility>

#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "rtl_model.h"
#include "vta/sim/cycle/dram_target.h"
#include "vta/sim/cycle/sim_context.h"
#include "vta/sim/insn_check.h"
#include "vta/sim/isa.h"
#include "vta/sim/token_queues.h"

namespace vta {

namespace {

using rtl::CoreStatus;
using rtl::MemIn;
using rtl::MemOut;
using rtl::RtlModel;

constexpr const char* kUnitName[3] = {"load", "compute", "store"};
// Cycles between SystemC time synchronisations of the clock thread (temporal decoupling; the
// DRAM target is called with the exact cycle as annotated delay).
constexpr uint64_t kQuantum = 4096;

// True if the RTL built for `built` implements `cfg`: every key but the ones the glue (not the
// RTL) implements must match.
bool same_hardware(const HwConfig& built, const HwConfig& cfg) {
  nlohmann::json a = built.to_json();
  nlohmann::json b = cfg.to_json();
  for (const char* k : {"TARGET", "CLOCK_MHZ", "DRAM_READ_LATENCY_CYCLES",
                        "DRAM_WRITE_LATENCY_CYCLES", "DRAM_CYCLES_PER_BEAT"}) {
    a.erase(k);
    b.erase(k);
  }
  return a == b;
}

// A read burst whose beats are still to be delivered.
struct ReadBurst {
  uint64_t first = 0;  // absolute cycle of beat 0
  uint32_t interval = 1;
  uint32_t beats = 0;
  uint32_t next = 0;  // next beat to deliver
  uint8_t tag = 0;
  std::vector<uint8_t> data;
};

// A write burst whose beats are still to be taken from the store unit.
struct WriteBurst {
  uint32_t addr = 0;
  uint64_t first = 0;
  uint32_t interval = 1;
  uint32_t beats = 0;
  uint32_t next = 0;
  std::vector<uint8_t> data;
};

}  // namespace

// The SystemC top of the rtl backend: the Verilated core, clocked by one thread, and the DRAM
// target of the cycle model behind a TLM initiator socket.
class RtlTop : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(RtlTop);

  tlm_utils::simple_initiator_socket<RtlTop> socket;
  cycle::DramTarget dram_target;

  RtlTop(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram, RtlModel& model)
      : sc_core::sc_module(name),
        socket("socket"),
        dram_target("dram", cfg, dram),
        m_cfg(cfg),
        m_dram(dram),
        m_model(model) {
    socket.bind(dram_target.socket);
    SC_THREAD(clock_thread);
  }

  // ---- one run, set by the host before sc_start ----
  uint32_t insn_phys = 0, insn_count = 0;
  uint64_t wait_cycles = 0;
  uint64_t vcd_start = 0, vcd_end = 0;  // window in cycles over all runs
  bool vcd_on = false;
  uint64_t total_cycles = 0;  // cycles of earlier runs
  // results
  bool finished = false, timed_out = false, stuck = false, rtl_error = false;
  uint64_t run_cycles = 0;
  uint64_t read_bursts[5] = {}, write_bursts = 0, read_beats = 0, write_beats = 0;  // this run
  std::exception_ptr error;
  sc_core::sc_event go;

 private:
  void clock_thread() {
    while (true) {
      sc_core::wait(go);
      try {
        run_loop();
      } catch (...) {
        error = std::current_exception();
      }
      sc_core::sc_pause();
    }
  }

  uint64_t now_abs() const { return cycle::now_cycle() + m_local; }

  void run_loop() {
    finished = timed_out = stuck = rtl_error = false;
    run_cycles = 0;
    read_bursts[0] = read_bursts[1] = read_bursts[2] = read_bursts[3] = read_bursts[4] = 0;
    write_bursts = read_beats = write_beats = 0;
    m_local = 0;
    m_reads.clear();
    m_writes.clear();
    m_resps.clear();
    const uint64_t base = now_abs();
    dram_target.timing().reset(base);
    m_model.start(insn_phys, insn_count);
    const size_t bus = static_cast<size_t>(m_cfg.bus_bytes);
    MemIn in;
    MemOut out;
    int stuck_cycles = 0;
    for (uint64_t c = 0;; ++c) {
      const uint64_t abs = base + c;
      // 1. what the memory drives this cycle
      in = MemIn{};
      if (!m_reads.empty()) {
        ReadBurst& r = m_reads.front();
        if (r.first + static_cast<uint64_t>(r.next) * r.interval == abs) {
          in.rd_data_valid = true;
          in.rd_data_tag = r.tag;
          in.rd_data = r.data.data() + static_cast<size_t>(r.next) * bus;
        }
      }
      WriteBurst* wb = nullptr;
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
      const uint64_t total = total_cycles + c;
      in.trace_cycle = total;
      if (vcd_on) {
        m_model.set_vcd_active(total >= vcd_start && total < vcd_end);
      }
      // 2. clock the core
      m_model.cycle(in, out);
      // 3. act on its requests
      if (in.rd_data_valid) {
        ReadBurst& r = m_reads.front();
        if (++r.next == r.beats) {
          m_reads.pop_front();
        }
      }
      if (out.rd_req) {
        grant_read(abs, out);
        ++read_bursts[out.rd_tag % 5];
        read_beats += out.rd_beats;
      }
      if (in.wr_data_take) {
        if (!out.wr_data_valid) {
          throw Error(
              fmt::format("rtl backend: the store unit had no data beat ready in cycle {}"
                          " (RTL timing bug)",
                          c));
        }
        std::memcpy(wb->data.data() + static_cast<size_t>(wb->next) * bus, out.wr_data, bus);
        if (++wb->next == wb->beats) {
          uint8_t* host = m_dram.checked_ptr(wb->addr, wb->data.size());
          if (host == nullptr) {
            throw ProgramError(
                fmt::format("store unit: write burst [{:#x}, {:#x}) is outside allocated memory",
                            wb->addr, wb->addr + wb->data.size()));
          }
          std::memcpy(host, wb->data.data(), wb->data.size());
          m_writes.pop_front();
        }
      }
      if (out.wr_req) {
        ++write_bursts;
        write_beats += out.wr_beats;
        const cycle::WriteBeats wt = dram_target.timing().write(abs, out.wr_beats);
        WriteBurst w;
        w.addr = out.wr_addr;
        w.first = wt.first;
        w.interval = wt.interval;
        w.beats = out.wr_beats;
        w.data.resize(static_cast<size_t>(out.wr_beats) * bus);
        m_writes.push_back(std::move(w));
        m_resps.push_back(wt.response);
      }
      // 4. end of run?
      run_cycles = c + 1;
      if (++m_local >= kQuantum) {
        sync();
      }
      if (out.error) {
        rtl_error = true;
        break;
      }
      if (out.finish) {
        finished = true;
        break;
      }
      stuck_cycles = out.stuck ? stuck_cycles + 1 : 0;
      if (stuck_cycles >= 2) {
        stuck = true;
        break;
      }
      if (wait_cycles != 0 && run_cycles >= wait_cycles) {
        timed_out = true;
        break;
      }
    }
    sync();
  }

  void grant_read(uint64_t abs, const MemOut& out) {
    const size_t bytes = static_cast<size_t>(out.rd_beats) * static_cast<size_t>(m_cfg.bus_bytes);
    ReadBurst r;
    r.tag = out.rd_tag;
    r.beats = out.rd_beats;
    r.data.resize(bytes);
    tlm::tlm_generic_payload p;
    cycle::MemTimingExt ext;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(out.rd_addr);
    p.set_data_ptr(r.data.data());
    p.set_data_length(static_cast<unsigned>(bytes));
    p.set_streaming_width(static_cast<unsigned>(bytes));
    p.set_byte_enable_ptr(nullptr);
    p.set_dmi_allowed(false);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p.set_extension(&ext);
    sc_core::sc_time delay = cycle::cycles(abs - cycle::now_cycle());
    socket->b_transport(p, delay);
    p.clear_extension(&ext);
    if (p.get_response_status() != tlm::TLM_OK_RESPONSE) {
      static const char* const kClient[5] = {"fetch", "uop", "inp", "wgt", "acc"};
      throw ProgramError(fmt::format("{} read burst [{:#x}, {:#x}) is outside allocated memory",
                                     kClient[out.rd_tag % 5], out.rd_addr, out.rd_addr + bytes));
    }
    r.first = ext.first;
    r.interval = ext.interval;
    m_reads.push_back(std::move(r));
  }

  void sync() {
    if (m_local != 0) {
      sc_core::wait(cycle::cycles(m_local));
      m_local = 0;
    }
  }

  const HwConfig& m_cfg;
  Dram& m_dram;
  RtlModel& m_model;
  uint64_t m_local = 0;  // cycles simulated ahead of SystemC time
  std::deque<ReadBurst> m_reads;
  std::deque<WriteBurst> m_writes;
  std::deque<uint64_t> m_resps;
};

struct RtlBackend::Impl {
  std::string model_name;
  std::unique_ptr<RtlModel> model;
  cycle::SimContext context;
  std::unique_ptr<RtlTop> top;
  IsaCodec codec;
  bool elaborated = false;
  uint64_t total_cycles = 0;
  std::string vcd_path;
  uint64_t vcd_start = 0, vcd_end = 0;

  explicit Impl(const HwConfig& cfg) : codec(cfg) {}
};

std::vector<std::string> RtlBackend::built_configs() {
  std::vector<std::string> names;
  for (const auto& m : rtl::built_models()) {
    names.emplace_back(m.name);
  }
  return names;
}

RtlBackend::RtlBackend(const HwConfig& cfg, Dram& dram) : Backend(cfg, dram) {
  // Limits of the Verilog (hw/README.md): fetch takes one instruction per 16 bytes of bus, and
  // tensor elements other than micro-ops are written one per cycle.
  if (cfg.bus_bytes > kInsnBytes) {
    throw Error(
        fmt::format("rtl backend: config {} has a {}-byte bus; the RTL supports at most "
                    "{} bytes (LOG_BUS_WIDTH <= 7)",
                    cfg.model_name, cfg.bus_bytes, kInsnBytes));
  }
  for (const auto& [what, bytes] : {std::pair<const char*, int>{"INP", cfg.inp_elem_bytes},
                                    {"WGT", cfg.wgt_elem_bytes},
                                    {"ACC", cfg.acc_elem_bytes},
                                    {"OUT", cfg.out_elem_bytes},
                                    {"ACC_8BIT", cfg.elem_bytes(kMemAcc8)}}) {
    if (bytes < cfg.bus_bytes) {
      throw Error(
          fmt::format("rtl backend: config {}: {} elements of {} bytes are narrower than "
                      "the {}-byte bus; the RTL needs at least one beat per element",
                      cfg.model_name, what, bytes, cfg.bus_bytes));
    }
  }
  m_impl = std::make_unique<Impl>(cfg);
  for (const auto& m : rtl::built_models()) {
    const HwConfig built =
        HwConfig::from_json_text(m.config_json, std::string("configs/") + m.name + ".json");
    if (same_hardware(built, cfg)) {
      m_impl->model_name = m.name;
      m_impl->model = m.make(cfg.bus_bytes);
      break;
    }
  }
  if (!m_impl->model) {
    std::string built;
    for (const auto& n : built_configs()) {
      built += (built.empty() ? "" : ", ") + n;
    }
    throw Error(fmt::format(
        "rtl backend: no RTL model built for config {} (TARGET {}); built: {} (set the CMake "
        "option VTA_RTL_CONFIGS to add one)",
        cfg.model_name, cfg.target, built.empty() ? "none" : built));
  }
  m_impl->model->reset();
  m_impl->context.activate();
  m_impl->top = std::make_unique<RtlTop>("rtl_top", m_cfg, m_dram, *m_impl->model);
}

RtlBackend::~RtlBackend() {
  if (m_impl && m_impl->model) {
    m_impl->model->close_vcd();
  }
}

const std::string& RtlBackend::model_config() const {
  return m_impl->model_name;
}

void RtlBackend::enable_vcd(const std::string& path, uint64_t start, uint64_t end) {
  if (!m_impl->model->open_vcd(path)) {
    throw Error(
        "rtl backend: the RTL model was built without tracing (VTA_RTL_TRACE=OFF), so no "
        "VCD: " +
        path);
  }
  m_impl->vcd_path = path;
  m_impl->vcd_start = start;
  m_impl->vcd_end = end;
}

RunStatus RtlBackend::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  Impl& im = *m_impl;
  // ---- fetch-time checks, with fsim's messages ----
  const uint8_t* p = checked_insn_stream(m_dram, insn_phys, insn_count);
  if (insn_phys % kInsnBytes != 0) {
    throw ProgramError(fmt::format(
        "fetch unit: the instruction stream at physical address {:#x} is not 16-byte aligned",
        insn_phys));
  }
  std::vector<Insn> insns(insn_count);
  std::vector<uint32_t> unit_list[3];
  for (uint32_t k = 0; k < insn_count; ++k) {
    insns[k] = im.codec.decode(IsaCodec::load_words(p + static_cast<size_t>(k) * kInsnBytes));
    check_insn_static(k, insns[k]);
    unit_list[insns[k].stage() - 1].push_back(k);
  }
  // Range checks of the instructions up to the first FINISH (fsim checks them as they execute;
  // the RTL itself only checks GEMM/ALU indices, which depend on the uop SRAM).
  for (uint32_t k = 0; k < insn_count; ++k) {
    const Insn& i = insns[k];
    if (i.opcode == kOpFinish) {
      break;
    }
    if (i.opcode == kOpLoad && i.x_size != 0) {
      check_load_ranges(m_cfg, m_dram, k, i);
    }
    if (i.opcode == kOpStore && i.x_size != 0) {
      check_store_ranges(m_cfg, m_dram, k, i);
    }
    if (i.opcode == kOpGemm || i.opcode == kOpAlu) {
      check_uop_range(m_cfg, k, i);
    }
  }

  // ---- run the core ----
  im.context.activate();
  RtlTop& top = *im.top;
  if (!im.elaborated) {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    im.elaborated = true;
  }
  top.insn_phys = insn_phys;
  top.insn_count = insn_count;
  top.wait_cycles = wait_cycles;
  top.total_cycles = im.total_cycles;
  top.vcd_on = !im.vcd_path.empty();
  top.vcd_start = im.vcd_start;
  top.vcd_end = im.vcd_end;
  top.error = nullptr;
  top.go.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  if (top.vcd_on) {
    im.model->set_vcd_active(false);
  }
  im.total_cycles += top.run_cycles;
  if (top.error) {
    std::rethrow_exception(top.error);
  }

  // ---- results ----
  const CoreStatus st = im.model->status();
  if (top.rtl_error) {
    const uint32_t ord = st.err_compute_insn;
    const uint32_t k = ord < unit_list[1].size() ? unit_list[1][ord] : 0;
    const Insn& i = insns[k];
    const bool gemm = i.opcode == kOpGemm;
    const char* what = st.err_code == 1 ? "dst" : st.err_code == 2 ? "src" : "wgt";
    const char* buffer = st.err_code == 1   ? "ACC"
                         : st.err_code == 2 ? (gemm ? "INP" : "ACC")
                                            : "WGT";
    const uint32_t depth = st.err_code == 1   ? m_cfg.acc_buff_depth
                           : st.err_code == 2 ? (gemm ? m_cfg.inp_buff_depth : m_cfg.acc_buff_depth)
                                              : m_cfg.wgt_buff_depth;
    throw ProgramError(fmt::format("{}: {} index {} is beyond the {} buffer of {} entries",
                                   insn_error_prefix(k, i), what, st.err_value, buffer, depth));
  }
  if (top.stuck) {
    bool any_left = false;
    std::string msg = "deadlock: no unit can progress and FINISH has not executed:";
    uint32_t tokens[4];
    for (int q = 0; q < 4; ++q) {
      tokens[q] = (st.token_counts >> (8 * q)) & 0xff;
    }
    for (int u = 0; u < 3; ++u) {
      const uint32_t done = st.unit_insns[u];
      if (done >= unit_list[u].size()) {
        msg += fmt::format(" {} unit has no instructions left;", kUnitName[u]);
        continue;
      }
      any_left = true;
      const uint32_t k = unit_list[u][done];
      const Insn& i = insns[k];
      const int stage = u + 1;  // units are numbered from 0, stages from kStageLoad = 1
      const int pop_prev = kPopPrev[stage], pop_next = kPopNext[stage];
      const int push_prev = kPushPrev[stage], push_next = kPushNext[stage];
      const auto blocked = [&](const char* flag, int q, const std::string& state) {
        msg += fmt::format(" {} unit is blocked at instruction {} ({}): {} waits on queue {} ({});",
                           kUnitName[u], k, opcode_name(i.opcode), flag, kTokenQueueName[q], state);
      };
      const uint32_t depth = static_cast<uint32_t>(m_cfg.dep_queue_depth);
      if (i.pop_prev_dep && pop_prev >= 0 && tokens[pop_prev] == 0) {
        blocked("pop_prev_dep", pop_prev, "empty");
      } else if (i.pop_next_dep && pop_next >= 0 && tokens[pop_next] == 0) {
        blocked("pop_next_dep", pop_next, "empty");
      } else if (i.push_prev_dep && push_prev >= 0 && tokens[push_prev] >= depth) {
        blocked("push_prev_dep", push_prev, fmt::format("full, {} tokens", depth));
      } else if (i.push_next_dep && push_next >= 0 && tokens[push_next] >= depth) {
        blocked("push_next_dep", push_next, fmt::format("full, {} tokens", depth));
      } else {
        msg += fmt::format(" {} unit is waiting at instruction {};", kUnitName[u], k);
      }
    }
    if (!any_left) {
      throw ProgramError(fmt::format(
          "fetch unit: no FINISH executed within insn_count = {} instructions", insn_count));
    }
    msg += fmt::format(" tokens l2g={} g2l={} s2g={} g2s={}", tokens[0], tokens[1], tokens[2],
                       tokens[3]);
    throw ProgramError(msg);
  }

  // ---- statistics (the RTL's event counters) ----
  Stats& s = m_stats;
  s.timed = true;
  s.runs += 1;
  s.cycles += top.run_cycles;
  s.inp_load_nbytes += st.inp_load_nbytes;
  s.wgt_load_nbytes += st.wgt_load_nbytes;
  s.acc_load_nbytes += st.acc_load_nbytes;
  s.uop_load_nbytes += st.uop_load_nbytes;
  s.out_store_nbytes += st.out_store_nbytes;
  s.gemm_counter += st.gemm_counter;
  s.alu_counter += st.alu_counter;
  for (int u = 0; u < 3; ++u) {
    const uint32_t n =
        std::min<uint32_t>(st.unit_insns[u], static_cast<uint32_t>(unit_list[u].size()));
    for (uint32_t j = 0; j < n; ++j) {
      ++s.insn_count[insns[unit_list[u][j]].opcode];
    }
    const std::string unit = kUnitName[u];
    s.add(unit + ".busy_cycles", static_cast<double>(st.unit_busy[u]), "cycles",
          "cycles executing instructions (E - S + 1 each)");
    s.add(unit + ".idle_cycles", static_cast<double>(st.unit_idle[u]), "cycles",
          "cycles with no instruction in the queue");
    s.add(unit + ".mem_stall_cycles", static_cast<double>(st.unit_mem_stall[u]), "cycles",
          "busy cycles of DMA instructions spent waiting on memory");
  }
  // the same names as the cycle model (sim/README.md section 6)
  static const char* const kStallName[8] = {
      "load.stall_g2l_cycles",    "load.stall_l2g_full_cycles",    "compute.stall_l2g_cycles",
      "compute.stall_s2g_cycles", "compute.stall_g2l_full_cycles", "compute.stall_g2s_full_cycles",
      "store.stall_g2s_cycles",   "store.stall_s2g_full_cycles"};
  static const bool kTokenWait[8] = {true, false, true, true, false, false, true, false};
  for (int k = 0; k < 8; ++k) {
    s.add(kStallName[k], static_cast<double>(st.stall[k]), "cycles",
          kTokenWait[k] ? "cycles waiting for a token" : "cycles waiting for room in a full queue");
  }
  s.add("fetch.active_cycles", static_cast<double>(st.fetch_active), "cycles",
        "cycles from run start to the last instruction dispatch");
  s.add("fetch.stall_queue_full_cycles", static_cast<double>(st.fetch_stall), "cycles",
        "cycles an instruction waited for room in its unit's instruction queue");
  s.add("gemm.active_cycles", static_cast<double>(st.gemm_counter), "cycles",
        "uop iterations issued by non-reset GEMMs");
  s.add("alu.active_cycles", static_cast<double>(st.alu_active_cycles), "cycles",
        "ALU issue cycles");
  static const char* const kClient[5] = {"fetch", "uop", "inp", "wgt", "acc"};
  for (int c = 0; c < 5; ++c) {
    s.add(fmt::format("mem.{}.bursts", kClient[c]), static_cast<double>(top.read_bursts[c]),
          "bursts", fmt::format("read bursts granted to the {} client", kClient[c]));
  }
  s.add("mem.store.bursts", static_cast<double>(top.write_bursts), "bursts", "write bursts");
  s.add("mem.read_beats", static_cast<double>(top.read_beats), "beats", "read data beats");
  s.add("mem.write_beats", static_cast<double>(top.write_beats), "beats", "write data beats");
  if (top.timed_out) {
    return RunStatus::kTimeout;
  }
  return RunStatus::kOk;
}

}  // namespace vta

#include "vta/sim/backend_registry.h"
VTA_REGISTER_BACKEND(rtl, vta::RtlBackend, /*order=*/20, /*timed=*/true);
