#include "vta/hw/rtl_backend.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "rtl_model.h"
#include "vta/sim/contract/dependency_rule.h"
#include "vta/sim/contract/timing_constants.h"
#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/cycle/sim_context.h"
#include "vta/sim/hw_spec_signature.h"
#include "vta/sim/insn_check.h"
#include "vta/sim/isa.h"
#include "vta/sim/run_progress.h"
#include "vta/sim/vcd_limit.h"

namespace vta {

namespace {

using rtl::CoreStatus;
using rtl::MemIn;
using rtl::MemOut;
using rtl::RtlModel;

// Cycles between SystemC time synchronisations of the clock thread (temporal decoupling; the
// DRAM target is called with the exact cycle as annotated delay).
constexpr uint64_t kQuantum = 4096;
// Cycles between two looks at the VCD's size (the RTL writes up to ~10 KB per cycle).
constexpr uint64_t kVcdSizeCheck = 256;
// Cycles between two looks of the watchdog at the core's progress counters.
constexpr uint64_t kWatchdogCheck = 1024;

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
  for (nlohmann::json* j : {&a, &b}) {  // the memory model is the glue's too
    for (auto it = j->begin(); it != j->end();) {
      it = is_memory_key(it.key()) ? j->erase(it) : std::next(it);
    }
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
  std::vector<bool> strb;  // bytes the store unit writes (a row narrower than its beats)
};

// How the clock thread's run ended.
enum class Ending { kFinished, kTimeout, kStuck, kRtlError, kNoProgress };

// What only moves when the core gets work done: instructions finished, bytes a DMA unit
// started, GEMM/ALU micro-ops issued (inside an instruction too, so a long loop is progress).
// (Busy, stall and fetch cycle counters grow while it waits.)
uint64_t progress_fingerprint(const rtl::CoreStatus& st) {
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

}  // namespace

// The SystemC top of the rtl backend: the Verilated core, clocked by one thread, and the memory
// model the config names (the cycle backend's, MEMORY_MODEL) behind a TLM initiator socket.
class RtlTop : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(RtlTop);

  tlm_utils::simple_initiator_socket<RtlTop> socket;
  std::unique_ptr<cycle::MemoryTarget> memory;

  RtlTop(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram, RtlModel& model)
      : sc_core::sc_module(name),
        socket("socket"),
        memory(cycle::find_memory_model(cfg.memory.model).make("dram", cfg, dram)),
        m_cfg(cfg),
        m_dram(&dram),
        m_model(&model) {
    socket.bind(memory->target_socket());
    SC_THREAD(clock_thread);
  }

  // A parked top serves a new backend (RtlBackend::Impl): its DRAM, its Verilated model, no VCD.
  void rebind(Dram& dram, RtlModel& model) {
    m_dram = &dram;
    m_model = &model;
    memory->rebind_dram(dram);
    vcd_path.clear();
    vcd_limit = 0;
    vcd_cut = UINT64_MAX;
    m_vcd_first_total = m_vcd_first_bytes = m_vcd_cut_bytes = 0;
  }

  // ---- one run, set by the host before sc_start ----
  uint32_t insn_phys = 0, insn_count = 0;
  uint64_t wait_cycles = 0;
  uint64_t watchdog_cycles = 0;         // a run without progress for this long is a hang
  uint64_t vcd_start = 0, vcd_end = 0;  // window in cycles over all runs
  bool vcd_on = false;
  // The VCD size limit (0 = none): once the file passes it, dumping stops at cycle vcd_cut.
  std::string vcd_path;
  uint64_t vcd_limit = 0;
  uint64_t vcd_cut = UINT64_MAX;
  uint64_t total_cycles = 0;  // cycles of earlier runs
  // results of this run
  Ending ending = Ending::kFinished;
  uint64_t run_cycles = 0;
  uint64_t last_progress = 0;  // run cycle of the last progress the watchdog saw
  uint64_t quiet_cycles = 0;   // kNoProgress: cycles since then
  std::array<TimedCounters::Traffic, kNumReadClients> read{};  // bursts and beats per client
  TimedCounters::Traffic write{};
  std::exception_ptr error;
  sc_core::sc_event go;

  // After a cut: the size the VCD up to cycle `end` would have had, the bytes per cycle after
  // the first look (the header aside) continued to `end`.
  uint64_t vcd_estimate(uint64_t end) const {
    if (m_vcd_first_total == 0 || vcd_cut <= m_vcd_first_total) {
      return m_vcd_cut_bytes * (end - vcd_start) / (vcd_cut - vcd_start);
    }
    const double rate = static_cast<double>(m_vcd_cut_bytes - m_vcd_first_bytes) /
                        static_cast<double>(vcd_cut - m_vcd_first_total);
    return m_vcd_first_bytes +
           static_cast<uint64_t>(rate * static_cast<double>(end - m_vcd_first_total));
  }

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

  // Clocks the core from the start of a run until it finishes, fails, gets stuck or times out.
  void run_loop() {
    const uint64_t base = begin_run();
    MemOut out;
    int stuck_cycles = 0;
    for (uint64_t c = 0;; ++c) {
      const uint64_t abs = base + c;
      WriteBurst* wb = nullptr;
      MemIn in = memory_inputs(abs, wb);
      in.trace_cycle = total_cycles + c;
      trace_window(in.trace_cycle);
      m_model->cycle(in, out);
      serve_requests(abs, c, in, out, wb);
      watch_progress(c, in, out);
      run_cycles = c + 1;
      if (++m_local >= kQuantum) {
        sync();
        publish_progress();
        poll_stop(kQuantum);  // the caller's Ctrl-C (run_progress.h)
      }
      if (c % kVcdSizeCheck == 0) {
        watch_vcd_size(total_cycles + c + 1);
      }
      if (run_ended(out, stuck_cycles)) {
        break;
      }
    }
    sync();
    publish_progress();
  }

  // Adds what the run did since the last call to the process's progress (run_progress.h).
  void publish_progress() {
    const CoreStatus st = m_model->status();
    const uint64_t insns = uint64_t{st.unit_insns[0]} + st.unit_insns[1] + st.unit_insns[2];
    run_progress().add(run_cycles - std::min(run_cycles, m_shown_cycles),
                       insns - std::min(insns, m_shown_insns));
    m_shown_cycles = std::max(m_shown_cycles, run_cycles);
    m_shown_insns = std::max(m_shown_insns, insns);
  }

  // Clears the results and the bursts in flight and starts the core; returns cycle 0 of the
  // run in absolute cycles.
  uint64_t begin_run() {
    ending = Ending::kFinished;
    run_cycles = 0;
    last_progress = 0;
    m_shown_cycles = 0;
    m_shown_insns = 0;
    m_fingerprint = 0;
    m_hung = false;
    read.fill(TimedCounters::Traffic{});
    write = TimedCounters::Traffic{};
    m_local = 0;
    m_reads.clear();
    m_writes.clear();
    m_resps.clear();
    const uint64_t base = now_abs();
    memory->reset(base);
    memory->reset_counters();
    m_model->start(insn_phys, insn_count);
    return base;
  }

  // What the memory drives in cycle `abs`; `wb` is set to the write burst that takes beats next.
  MemIn memory_inputs(uint64_t abs, WriteBurst*& wb) {
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

  void trace_window(uint64_t total) {
    if (vcd_on) {
      m_model->set_vcd_active(total >= vcd_start && total < std::min(vcd_end, vcd_cut));
    }
  }

  // Acts on what the core did in cycle `c` (absolute `abs`): beats delivered and taken, bursts
  // requested.
  void serve_requests(uint64_t abs, uint64_t c, const MemIn& in, const MemOut& out,
                      WriteBurst* wb) {
    if (in.rd_data_valid) {
      ReadBurst& r = m_reads.front();
      if (++r.next == r.beats) {
        m_reads.pop_front();
      }
    }
    if (out.rd_req) {
      const uint64_t last = grant_read(abs, out);
      TimedCounters::Traffic& t = read[static_cast<size_t>(read_client(out.rd_tag))];
      ++t.bursts;
      t.beats += out.rd_beats;
      add_latency(t, last - abs);
    }
    if (in.wr_data_take) {
      take_write_beat(*wb, out, c);
    }
    if (out.wr_req) {
      post_write(abs, out);
    }
  }

  // The watchdog: memory traffic counts as progress at once, the core's counters every
  // kWatchdogCheck cycles (reading them costs more than a cycle).
  void watch_progress(uint64_t c, const MemIn& in, const MemOut& out) {
    if (watchdog_cycles == 0) {
      return;
    }
    if (in.rd_data_valid || in.wr_data_take || in.wr_resp || out.rd_req || out.wr_req) {
      last_progress = c;
    }
    if (c % std::min(kWatchdogCheck, watchdog_cycles) == 0) {
      const uint64_t f = progress_fingerprint(m_model->status());
      if (f != m_fingerprint) {
        m_fingerprint = f;
        last_progress = c;
      } else if (c - last_progress >= watchdog_cycles) {
        quiet_cycles = c - last_progress;
        m_hung = true;
      }
    }
  }

  bool run_ended(const MemOut& out, int& stuck_cycles) {
    if (out.error) {
      ending = Ending::kRtlError;
      return true;
    }
    if (out.finish) {
      ending = Ending::kFinished;
      return true;
    }
    stuck_cycles = out.stuck ? stuck_cycles + 1 : 0;
    if (stuck_cycles >= 2) {
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

  static void add_latency(TimedCounters::Traffic& t, uint64_t cycles) {
    t.latency_sum += cycles;
    t.latency_max = std::max(t.latency_max, cycles);
  }

  // Returns the cycle of the burst's last beat.
  uint64_t grant_read(uint64_t abs, const MemOut& out) {
    const size_t bytes = static_cast<size_t>(out.rd_beats) * bus_bytes();
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
  void take_write_beat(WriteBurst& wb, const MemOut& out, uint64_t c) {
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
  void write_strobed(const WriteBurst& wb) {
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

  void post_write(uint64_t abs, const MemOut& out) {
    ++write.bursts;
    write.beats += out.wr_beats;
    const cycle::WriteBeats wt = memory->time_write(out.wr_addr, out.wr_beats, abs);
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

  // Past the size limit the VCD stops at cycle `total` (Verilator's buffer makes the file lag
  // behind by at most a few MiB).
  void watch_vcd_size(uint64_t total) {
    if (!vcd_on || vcd_limit == 0 || vcd_cut != UINT64_MAX) {
      return;
    }
    std::error_code ec;
    const uint64_t bytes = static_cast<uint64_t>(std::filesystem::file_size(vcd_path, ec));
    if (ec || total <= vcd_start) {
      return;
    }
    if (m_vcd_first_total == 0 && bytes > 0) {
      // the first look inside the window: what the header and $dumpvars take
      m_vcd_first_total = total;
      m_vcd_first_bytes = bytes;
    }
    if (bytes > vcd_limit) {
      vcd_cut = total;
      m_vcd_cut_bytes = bytes;
    }
  }

  void sync() {
    if (m_local != 0) {
      sc_core::wait(cycle::cycles(m_local));
      m_local = 0;
    }
  }

  size_t bus_bytes() const { return static_cast<size_t>(m_cfg.bus_bytes); }

  const HwConfig& m_cfg;
  Dram* m_dram;
  RtlModel* m_model;
  uint64_t m_local = 0;                                   // cycles simulated ahead of SystemC time
  uint64_t m_vcd_first_total = 0, m_vcd_first_bytes = 0;  // the VCD's size at its first look
  uint64_t m_vcd_cut_bytes = 0;                           // and when it passed the limit
  uint64_t m_shown_cycles = 0, m_shown_insns = 0;         // progress published in this run
  uint64_t m_fingerprint = 0;  // progress_fingerprint at the watchdog's last look
  bool m_hung = false;
  std::deque<ReadBurst> m_reads;
  std::deque<WriteBurst> m_writes;
  std::deque<uint64_t> m_resps;
};

namespace {

// Tokens queued at the end of a run (CoreStatus::token_counts: one byte per TokenQueueId).
TokenCounts token_counts(const CoreStatus& st) {
  TokenCounts t{};
  for (size_t q = 0; q < t.size(); ++q) {
    t[q] = (st.token_counts >> (8 * q)) & 0xff;
  }
  return t;
}

// The compute unit stopped on an out-of-range GEMM/ALU index: the error names the instruction,
// the field and the buffer.
[[noreturn]] void throw_rtl_error(const HwConfig& cfg, const LoadedProgram& p,
                                  const CoreStatus& st) {
  const std::vector<uint32_t>& compute = p.per_stage[kStageCompute];
  const uint32_t ord = st.err_compute_insn;
  const uint32_t k = ord < compute.size() ? compute[ord] : 0;
  const Insn& i = p.insns[k];
  const bool gemm = i.opcode == kOpGemm;
  const char* what = st.err_code == 1 ? "dst" : st.err_code == 2 ? "src" : "wgt";
  const char* buffer = st.err_code == 1 ? "ACC" : st.err_code == 2 ? (gemm ? "INP" : "ACC") : "WGT";
  const uint32_t depth = st.err_code == 1   ? cfg.acc_buff_depth
                         : st.err_code == 2 ? (gemm ? cfg.inp_buff_depth : cfg.acc_buff_depth)
                                            : cfg.wgt_buff_depth;
  throw ProgramError(fmt::format("{}: {} index {} is beyond the {} buffer of {} entries",
                                 insn_error_prefix(k, i), what, st.err_value, buffer, depth));
}

// No unit can progress: each unit's head instruction (the first it has not finished) and what
// the start rule says about it over the tokens left.
RunOutcome stuck_outcome(const HwConfig& cfg, const LoadedProgram& p, const CoreStatus& st) {
  RunOutcome out;
  out.kind = RunOutcome::kStuck;
  out.tokens = token_counts(st);
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    const std::vector<uint32_t>& list = p.per_stage[static_cast<size_t>(s)];
    const uint32_t done = st.unit_insns[s - 1];
    UnitReport& u = out.units[static_cast<size_t>(s - 1)];
    if (done >= list.size()) {
      continue;  // kNoneLeft
    }
    u.insn = list[done];
    u.opcode = p.insns[u.insn].opcode;
    u.block = start_block(token_use(p.insns[u.insn], static_cast<Stage>(s)), out.tokens,
                          static_cast<uint64_t>(cfg.dep_queue_depth));
    u.kind = u.block.blocked() ? UnitReport::kBlocked : UnitReport::kWaiting;
  }
  return out;
}

// The watchdog fired: a unit is inside an instruction that no longer moves. The error names
// each unit's state and the progress of the run so far.
[[noreturn]] void throw_hang_error(const HwConfig& cfg, const LoadedProgram& p,
                                   const CoreStatus& st, uint64_t quiet_cycles, uint64_t cycle) {
  RunOutcome out = stuck_outcome(cfg, p, st);
  uint64_t done = 0;
  for (size_t k = 0; k < 3; ++k) {
    done += st.unit_insns[k];
    if (out.units[k].kind != UnitReport::kNoneLeft && ((st.units_running >> k) & 1u) != 0) {
      out.units[k].kind = UnitReport::kExecuting;
    }
  }
  throw ProgramError(no_progress_message(
      out.units, quiet_cycles, cycle,
      fmt::format("progress: {} of {} instructions finished, {} GEMM and {} ALU micro-ops; {}",
                  done, p.count(), st.gemm_counter, st.alu_counter, tokens_text(out.tokens))));
}

// The upstream counters and the instructions each unit finished.
void add_upstream_counters(Stats& s, const LoadedProgram& p, const CoreStatus& st) {
  s.inp_load_nbytes += st.inp_load_nbytes;
  s.wgt_load_nbytes += st.wgt_load_nbytes;
  s.acc_load_nbytes += st.acc_load_nbytes;
  s.uop_load_nbytes += st.uop_load_nbytes;
  s.out_store_nbytes += st.out_store_nbytes;
  s.gemm_counter += st.gemm_counter;
  s.alu_counter += st.alu_counter;
  for (int stage = kStageLoad; stage <= kStageStore; ++stage) {
    const std::vector<uint32_t>& list = p.per_stage[static_cast<size_t>(stage)];
    const size_t n = std::min<size_t>(st.unit_insns[stage - 1], list.size());
    for (size_t j = 0; j < n; ++j) {
      ++s.insn_count[p.insns[list[j]].opcode];
    }
  }
}

// The RTL's event counters as the contract's TimedCounters. The RTL lays its stall counters
// out per stage in the order of the dependency flags (pop_prev, pop_next, push_prev,
// push_next), one for each flag whose queue exists on the stage.
TimedCounters timed_counters(const CoreStatus& st, const RtlTop& top) {
  TimedCounters c;
  c.exact_bytes = false;
  c.fetch_active = st.fetch_active;
  c.fetch_stall_queue_full = st.fetch_stall;
  size_t k = 0;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    TimedCounters::Unit& u = c.unit[static_cast<size_t>(s - 1)];
    u.busy = st.unit_busy[s - 1];
    u.insns = st.unit_insns[s - 1];
    u.idle = st.unit_idle[s - 1];
    u.mem_stall = st.unit_mem_stall[s - 1];
    for (int f = kFlagPopPrev; f <= kFlagPushNext; ++f) {
      const int q = flag_queue(static_cast<DepFlag>(f), static_cast<Stage>(s));
      if (q >= 0) {
        (f < kFlagPushPrev ? u.stall_token : u.stall_full)[static_cast<size_t>(q)] = st.stall[k++];
      }
    }
  }
  c.read = top.read;
  c.write = top.write;
  c.gemm_active = st.gemm_counter;
  c.alu_active = st.alu_active_cycles;
  top.memory->add_counters(c);
  return c;
}

// A config as rtl messages name it: the model string alone is shared by presets that differ in
// bus width or board (pynq and ultra96), so the bus width and TARGET are part of the name.
std::string config_name(const HwConfig& cfg) {
  return fmt::format("{} (TARGET {})", hw_spec_signature(cfg), cfg.target);
}

}  // namespace

// The SystemC side of an rtl backend: its kernel and top module, which SystemC cannot free. A
// destroyed backend parks it under its hardware (model and config keys) and the next backend of
// the same hardware takes it with a Verilated model of its own (fresh state), as the cycle
// backend reuses its cores (sim/src/cycle/cycle_backend.cc): a process keeps at most as many
// as it ever had rtl backends alive at once.
struct RtlCore {
  RtlCore(const HwConfig& c, Dram& dram, RtlModel& model, std::string pool_key)
      : cfg(c), key(std::move(pool_key)) {
    const cycle::SimContext::Lock lock = context.activate();
    top = std::make_unique<RtlTop>("rtl_top", cfg, dram, model);
  }

  const HwConfig cfg;  // the top's own copy: it outlives the backend that built it
  std::string key;
  cycle::SimContext context;
  std::unique_ptr<RtlTop> top;
  bool elaborated = false;
  bool idle = true;  // no run inside the kernel (false while one runs or after it broke off)

  // A parked core for `key` rebound to `dram` and `model`, else a new one.
  static std::unique_ptr<RtlCore> acquire(const HwConfig& cfg, Dram& dram, RtlModel& model,
                                          const std::string& key);
  // Parks the core, or destroys what it can when it cannot be reused.
  static void release(std::unique_ptr<RtlCore> core);
};

namespace {

std::map<std::string, std::vector<std::unique_ptr<RtlCore>>>& parked_rtl_cores() {
  static auto* pool = new std::map<std::string, std::vector<std::unique_ptr<RtlCore>>>;
  return *pool;
}
std::mutex& rtl_pool_lock() {
  static std::mutex m;
  return m;
}
// As the cycle backend's: a kernel past this many cycles leaves too little SystemC time.
constexpr uint64_t kMaxReuseCycles = uint64_t{1} << 33;

}  // namespace

std::unique_ptr<RtlCore> RtlCore::acquire(const HwConfig& cfg, Dram& dram, RtlModel& model,
                                          const std::string& key) {
  std::unique_ptr<RtlCore> core;
  {
    const std::lock_guard<std::mutex> guard(rtl_pool_lock());
    auto& pool = parked_rtl_cores();
    const auto it = pool.find(key);
    if (it != pool.end() && !it->second.empty()) {
      core = std::move(it->second.back());
      it->second.pop_back();
    }
  }
  if (!core) {
    return std::make_unique<RtlCore>(cfg, dram, model, key);
  }
  const cycle::SimContext::Lock lock = core->context.activate();
  core->top->rebind(dram, model);
  return core;
}

void RtlCore::release(std::unique_ptr<RtlCore> core) {
  const cycle::SimContext::Lock lock = core->context.activate();
  if (!core->idle || cycle::now_cycle() >= kMaxReuseCycles) {
    core.reset();
    return;
  }
  const std::lock_guard<std::mutex> guard(rtl_pool_lock());
  std::string key = core->key;
  parked_rtl_cores()[key].push_back(std::move(core));
}

struct RtlBackend::Impl {
  std::string model_name;
  std::unique_ptr<RtlModel> model;
  std::unique_ptr<RtlCore> core;
  uint64_t total_cycles = 0;
  uint64_t watchdog_cycles = RtlBackend::kDefaultWatchdogCycles;
  std::string vcd_path;
  uint64_t vcd_start = 0, vcd_end = 0;

  // Clocks the core through one run of the stream; rethrows what the clock thread threw.
  const RtlTop& run_core(const LoadedProgram& program, uint64_t wait_cycles);
};

const RtlTop& RtlBackend::Impl::run_core(const LoadedProgram& program, uint64_t wait_cycles) {
  const cycle::SimContext::Lock lock = core->context.activate();  // one thread at a time
  core->idle = false;
  if (!core->elaborated) {
    cycle::SimContext::start(sc_core::SC_ZERO_TIME);
    core->elaborated = true;
  }
  RtlTop& t = *core->top;
  t.insn_phys = program.insn_phys;
  t.insn_count = program.count();
  t.wait_cycles = wait_cycles;
  t.watchdog_cycles = watchdog_cycles;
  t.total_cycles = total_cycles;
  t.vcd_on = !vcd_path.empty();
  t.vcd_start = vcd_start;
  t.vcd_end = vcd_end;
  t.error = nullptr;
  t.go.notify(sc_core::SC_ZERO_TIME);
  cycle::SimContext::start();
  core->idle = true;  // the clock thread waits for the next run again
  if (t.vcd_on) {
    model->set_vcd_active(false);
  }
  total_cycles += t.run_cycles;
  if (t.error) {
    std::rethrow_exception(t.error);
  }
  if (t.vcd_cut != UINT64_MAX) {
    throw_vcd_over_limit(VcdOverLimit{vcd_path, t.vcd_limit,
                                      t.vcd_estimate(std::min(vcd_end, total_cycles)), t.vcd_cut,
                                      vcd_start, vcd_end, "extrapolated from the cycles written"});
  }
  return t;
}

std::vector<std::string> RtlBackend::built_configs() {
  std::vector<std::string> names;
  for (const auto& m : rtl::built_models()) {
    names.emplace_back(m.name);
  }
  return names;
}

RtlBackend::RtlBackend(const HwConfig& cfg, Dram& dram) : ContractBackend(cfg, dram) {
  if (cfg.cores != 0) {
    // docs/multicore.md: the cores' clock threads would need to run in lock step.
    throw Error(
        fmt::format("rtl backend: config {} has CORES = {}; the rtl backend simulates "
                    "one core without an interconnect (remove CORES)",
                    config_name(cfg), cfg.cores));
  }
  // Limits of the Verilog (hw/README.md): fetch takes one instruction per 16 bytes of bus, and
  // the acc buffer is written one element per cycle (micro-op, inp, wgt and out buffers take or
  // give a whole beat of narrower elements).
  if (cfg.bus_bytes > kInsnBytes) {
    throw Error(
        fmt::format("rtl backend: config {} has a {}-byte bus; the RTL supports at most "
                    "{} bytes (LOG_BUS_WIDTH <= 7)",
                    config_name(cfg), cfg.bus_bytes, kInsnBytes));
  }
  for (const auto& [what, bytes] : {std::pair<const char*, int>{"ACC", cfg.acc_elem_bytes},
                                    {"ACC_8BIT", cfg.elem_bytes(kMemAcc8)}}) {
    if (bytes < cfg.bus_bytes) {
      throw Error(
          fmt::format("rtl backend: config {}: {} elements of {} bytes are narrower than "
                      "the {}-byte bus; the RTL needs at least one beat per element",
                      config_name(cfg), what, bytes, cfg.bus_bytes));
    }
  }
  m_impl = std::make_unique<Impl>();
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
        "rtl backend: no RTL model built for config {}; built: {} (set the CMake option "
        "VTA_RTL_CONFIGS to add one)",
        config_name(cfg), built.empty() ? "none" : built));
  }
  m_impl->model->reset();
  m_impl->core = RtlCore::acquire(m_cfg, m_dram, *m_impl->model,
                                  m_impl->model_name + "\n" + m_cfg.to_json().dump());
}

RtlBackend::~RtlBackend() {
  if (!m_impl) {
    return;
  }
  if (m_impl->model) {
    m_impl->model->close_vcd();
  }
  if (m_impl->core) {
    RtlCore::release(std::move(m_impl->core));
  }
  m_impl.reset();
}

void RtlBackend::set_watchdog_cycles(uint64_t cycles) {
  m_impl->watchdog_cycles = cycles;
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
  m_impl->core->top->vcd_path = path;
  m_impl->core->top->vcd_limit = m_vcd_limit;
  m_impl->core->top->vcd_cut = UINT64_MAX;
}

// The RTL checks only GEMM/ALU indices itself (they depend on the uop SRAM); every other range
// is checked before the run, up to the first FINISH.
RunOutcome RtlBackend::execute(const LoadedProgram& program, uint64_t wait_cycles) {
  check_ranges_until_finish(m_cfg, m_dram, program);
  const RtlTop& top = m_impl->run_core(program, wait_cycles);
  const CoreStatus st = m_impl->model->status();
  if (top.ending == Ending::kRtlError) {
    throw_rtl_error(m_cfg, program, st);
  }
  if (top.ending == Ending::kStuck) {
    return stuck_outcome(m_cfg, program, st);
  }
  if (top.ending == Ending::kNoProgress) {
    m_impl->model->reset();  // a unit is stuck inside an instruction: the next run starts clean
    throw_hang_error(m_cfg, program, st, top.quiet_cycles, top.run_cycles);
  }
  m_stats.timed = true;
  add_upstream_counters(m_stats, program, st);
  RunOutcome out;
  out.kind = top.ending == Ending::kTimeout ? RunOutcome::kTimeout : RunOutcome::kFinished;
  out.cycles = top.run_cycles;
  out.counters = timed_counters(st, top);
  // Started instructions count (in flight at FINISH is dropped, sim/README.md section 1): the
  // finished ones plus the one a unit other than compute is still inside.
  for (size_t k = 0; k < 3; ++k) {
    const bool inside = k != 1 && ((st.units_running >> k) & 1u) != 0;
    out.completed[k] = st.unit_insns[k] + (inside ? 1u : 0u);
  }
  return out;
}

}  // namespace vta

#include "vta/sim/backend_registry.h"
VTA_REGISTER_BACKEND(rtl, vta::RtlBackend, /*order=*/20, /*timed=*/true);
