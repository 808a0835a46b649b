#include "vta/hw/rtl_backend.h"

#include <algorithm>
#include <array>
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

#include "interconnect.h"
#include "rtl_core_port.h"
#include "rtl_model.h"
#include "rtl_vcd.h"
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
using rtl::Ending;
using rtl::RtlCorePort;
using rtl::RtlModel;
using rtl::RtlVcd;

// Cycles between SystemC time synchronisations of the clock thread (temporal decoupling; the
// memory model and the interconnect are called with the exact cycle as annotated delay, and
// the one clock thread calls them in cycle order, every core of a system within each cycle).
constexpr uint64_t kQuantum = 4096;
// Cycles between two looks at the VCD's size (the RTL writes up to ~10 KB per cycle and core).
constexpr uint64_t kVcdSizeCheck = 256;

// True if the RTL built for `built` implements `cfg` (one core's config): every key but the
// ones the glue (not the RTL) implements must match.
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

}  // namespace

// The SystemC top of the rtl backend: the Verilated cores (an RtlCorePort each), clocked by one
// thread, and the memory model the config names (the cycle backend's, MEMORY_MODEL). A lone
// core reaches the memory model through its TLM initiator socket; the cores of a system (CORES,
// docs/multicore.md) reach it through the cycle model's interconnect, one socket each, and are
// clocked in lock step: in every cycle each core in turn, core 0 first.
class RtlTop : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(RtlTop);

  std::unique_ptr<cycle::MemoryTarget> memory;
  std::unique_ptr<cycle::Interconnect> interconnect;  // systems only
  std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket<RtlTop>>> sockets;
  std::vector<std::unique_ptr<RtlCorePort>> ports;  // one per core

  RtlTop(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram,
         const std::vector<RtlModel*>& models)
      : sc_core::sc_module(name),
        memory(cycle::find_memory_model(cfg.memory.model).make("dram", cfg, dram)) {
    if (cfg.cores != 0) {
      interconnect = std::make_unique<cycle::Interconnect>("interconnect", cfg);
      interconnect->memory.bind(memory->target_socket());
    }
    for (size_t k = 0; k < models.size(); ++k) {
      const std::string socket_name = k == 0 ? "socket" : fmt::format("socket{}", k);
      auto s = std::make_unique<tlm_utils::simple_initiator_socket<RtlTop>>(socket_name.c_str());
      if (interconnect) {
        s->bind(interconnect->cores);
      } else {
        s->bind(memory->target_socket());
      }
      ports.push_back(std::make_unique<RtlCorePort>(cfg.core_config(static_cast<int>(k)), dram,
                                                    *models[k], *s,
                                                    interconnect ? nullptr : memory.get()));
      sockets.push_back(std::move(s));
    }
    m_active.assign(models.size(), false);
    SC_THREAD(clock_thread);
  }

  // A parked top serves a new backend (RtlBackend::Impl): its DRAM, its Verilated models, no VCD.
  void rebind(Dram& dram, const std::vector<RtlModel*>& models) {
    memory->rebind_dram(dram);
    for (size_t k = 0; k < ports.size(); ++k) {
      ports[k]->rebind(dram, *models[k]);
    }
    vcd_path.clear();
    vcd_limit = 0;
    vcd_cut = UINT64_MAX;
    m_vcd_first_total = m_vcd_first_bytes = m_vcd_cut_bytes = 0;
  }

  // ---- one run, set by the host before sc_start ----
  std::vector<const LoadedProgram*> programs;  // per core; null: idle
  uint64_t wait_cycles = 0;
  uint64_t watchdog_cycles = 0;  // a run without progress for this long is a hang
  // The VCD of every core (the backend's, dumped once per half cycle at time 2c and 2c + 1 of
  // cycle c over all runs): its window in cycles, and its size limit (0 = none): once the file
  // passes it, dumping stops at cycle vcd_cut.
  RtlVcd* vcd = nullptr;
  uint64_t vcd_start = 0, vcd_end = 0;
  bool vcd_on = false;
  std::string vcd_path;
  uint64_t vcd_limit = 0;
  uint64_t vcd_cut = UINT64_MAX;
  uint64_t total_cycles = 0;  // cycles of earlier runs
  // results of this run
  uint64_t run_cycles = 0;  // the system's: first start to the last core's end
  std::exception_ptr error;
  int error_core = -1;  // the core whose error (or RTL error / hang) ended the run; -1 none
  sc_core::sc_event go;

  // False if core k's run was cut off (another core's error ended the system's run).
  bool ended(size_t k) const { return !m_active[k]; }

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
        const uint64_t base = begin_run();
        if (interconnect) {
          run_system(base);
        } else {
          run_core(base);
        }
      } catch (...) {
        error = std::current_exception();
      }
      sc_core::sc_pause();
    }
  }

  uint64_t now_abs() const { return cycle::now_cycle() + m_local; }

  // Clocks a lone core from the start of a run until it finishes, fails, gets stuck or times
  // out.
  void run_core(uint64_t base) {
    RtlCorePort& port = *ports[0];
    for (uint64_t c = 0;; ++c) {
      const uint64_t t = total_cycles + c;
      trace_window(t);
      port.fall(base + c, c);
      vcd->dump(2 * t);
      const bool ended = port.rise(c);
      vcd->dump(2 * t + 1);
      run_cycles = c + 1;
      if (++m_local >= kQuantum) {
        sync();
        publish_progress();
        poll_stop(kQuantum);  // the caller's Ctrl-C (run_progress.h)
      }
      if (c % kVcdSizeCheck == 0) {
        watch_vcd_size(total_cycles + c + 1);
      }
      if (ended) {
        m_active[0] = false;
        break;
      }
    }
    sync();
    publish_progress();
  }

  // Clocks every core with a program, cycle by cycle, until each has ended; an RTL error or a
  // hang of one core ends the system's run.
  void run_system(uint64_t base) {
    size_t running = static_cast<size_t>(std::count(m_active.begin(), m_active.end(), true));
    for (uint64_t c = 0; running > 0; ++c) {
      const uint64_t t = total_cycles + c;
      trace_window(t);
      for (size_t k = 0; k < ports.size(); ++k) {
        if (m_active[k]) {
          fall_core(k, base + c, c);
        }
      }
      vcd->dump(2 * t);
      running = rise_cores(c, running);
      vcd->dump(2 * t + 1);
      run_cycles = c + 1;
      if (++m_local >= kQuantum) {
        sync();
        publish_progress();
        poll_stop(kQuantum);
      }
      if (c % kVcdSizeCheck == 0) {
        watch_vcd_size(total_cycles + c + 1);
      }
    }
    sync();
    publish_progress();
  }

  // The clock low of core k in cycle c; an exception names the core (error_core). Each core's
  // requests reach the interconnect here, core 0 first.
  void fall_core(size_t k, uint64_t abs, uint64_t c) {
    try {
      ports[k]->fall(abs, c);
    } catch (...) {
      error_core = static_cast<int>(k);
      throw;
    }
  }

  // The rising edge of every running core in cycle c; returns how many still run (none after an
  // RTL error or a hang, which ends the system's run). A core's edge depends on its own inputs
  // only, so rising after every core's fall gives what rising right after its own would.
  size_t rise_cores(uint64_t c, size_t running) {
    for (size_t k = 0; k < ports.size() && running > 0; ++k) {
      if (m_active[k] && ports[k]->rise(c)) {
        m_active[k] = false;
        --running;
        const Ending e = ports[k]->ending;
        if (e == Ending::kRtlError || e == Ending::kNoProgress) {
          error_core = static_cast<int>(k);
          running = 0;
        }
      }
    }
    return running;
  }

  // Adds what the run did since the last call to the process's progress (run_progress.h).
  void publish_progress() {
    uint64_t insns = 0;
    for (size_t k = 0; k < ports.size(); ++k) {
      if (programs[k] != nullptr) {
        const CoreStatus st = ports[k]->model().status();
        insns += uint64_t{st.unit_insns[0]} + st.unit_insns[1] + st.unit_insns[2];
      }
    }
    run_progress().add(run_cycles - std::min(run_cycles, m_shown_cycles),
                       insns - std::min(insns, m_shown_insns));
    m_shown_cycles = std::max(m_shown_cycles, run_cycles);
    m_shown_insns = std::max(m_shown_insns, insns);
  }

  // Clears the results, resets the memory model (and interconnect) and starts every core with
  // a program; returns cycle 0 of the run in absolute cycles.
  uint64_t begin_run() {
    run_cycles = 0;
    error_core = -1;
    m_shown_cycles = 0;
    m_shown_insns = 0;
    m_local = 0;
    const uint64_t base = now_abs();
    memory->reset(base);
    memory->reset_counters();
    if (interconnect) {
      interconnect->reset(base);
      interconnect->clear_stats();
    }
    for (size_t k = 0; k < ports.size(); ++k) {
      const LoadedProgram* p = programs[k];
      m_active[k] = p != nullptr;
      if (p != nullptr) {
        ports[k]->wait_cycles = wait_cycles;
        ports[k]->watchdog_cycles = watchdog_cycles;
        ports[k]->begin(p->insn_phys, p->count(), interconnect ? p : nullptr);
      }
    }
    return base;
  }

  void trace_window(uint64_t total) {
    if (vcd_on) {
      vcd->set_active(total >= vcd_start && total < std::min(vcd_end, vcd_cut));
    }
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

  uint64_t m_local = 0;                                   // cycles simulated ahead of SystemC time
  uint64_t m_vcd_first_total = 0, m_vcd_first_bytes = 0;  // the VCD's size at its first look
  uint64_t m_vcd_cut_bytes = 0;                           // and when it passed the limit
  uint64_t m_shown_cycles = 0, m_shown_insns = 0;         // progress published in this run
  std::vector<bool> m_active;                             // per core: a program still running
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
// `memory`: the memory model whose own counters the core reports (core 0's), else null.
TimedCounters timed_counters(const CoreStatus& st, const RtlCorePort& port,
                             const cycle::MemoryTarget* memory) {
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
  c.read = port.read;
  c.write = port.write;
  c.gemm_active = st.gemm_counter;
  c.alu_active = st.alu_active_cycles;
  if (memory != nullptr) {
    memory->add_counters(c);
  }
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
  RtlCore(const HwConfig& c, Dram& dram, const std::vector<RtlModel*>& models, std::string pool_key)
      : cfg(c), key(std::move(pool_key)) {
    const cycle::SimContext::Lock lock = context.activate();
    top = std::make_unique<RtlTop>("rtl_top", cfg, dram, models);
  }

  const HwConfig cfg;  // the top's own copy: it outlives the backend that built it
  std::string key;
  cycle::SimContext context;
  std::unique_ptr<RtlTop> top;
  bool elaborated = false;
  bool idle = true;  // no run inside the kernel (false while one runs or after it broke off)

  // A parked core for `key` rebound to `dram` and `models`, else a new one.
  static std::unique_ptr<RtlCore> acquire(const HwConfig& cfg, Dram& dram,
                                          const std::vector<RtlModel*>& models,
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

std::unique_ptr<RtlCore> RtlCore::acquire(const HwConfig& cfg, Dram& dram,
                                          const std::vector<RtlModel*>& models,
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
    return std::make_unique<RtlCore>(cfg, dram, models, key);
  }
  const cycle::SimContext::Lock lock = core->context.activate();
  core->top->rebind(dram, models);
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
  RtlVcd vcd;  // first: its Verilator context outlives the models made in it
  std::vector<std::string> model_names;  // per core: the config whose model serves it
  std::vector<std::unique_ptr<RtlModel>> models;
  std::unique_ptr<RtlCore> core;
  uint64_t total_cycles = 0;
  uint64_t watchdog_cycles = RtlBackend::kDefaultWatchdogCycles;
  std::string vcd_path;
  uint64_t vcd_start = 0, vcd_end = 0;

  // Clocks the cores through one run of their programs (null: idle); rethrows what the clock
  // thread threw, naming the core in a system.
  const RtlTop& run_cores(const std::vector<const LoadedProgram*>& programs, uint64_t wait_cycles);
  // After a run that broke off: the cores still inside it start clean next time.
  void reset_cut_cores(const RtlTop& t) const;
};

void RtlBackend::Impl::reset_cut_cores(const RtlTop& t) const {
  for (size_t k = 0; k < models.size(); ++k) {
    if (!t.ended(k)) {
      models[k]->reset();
    }
  }
}

const RtlTop& RtlBackend::Impl::run_cores(const std::vector<const LoadedProgram*>& programs,
                                          uint64_t wait_cycles) {
  const cycle::SimContext::Lock lock = core->context.activate();  // one thread at a time
  core->idle = false;
  if (!core->elaborated) {
    cycle::SimContext::start(sc_core::SC_ZERO_TIME);
    core->elaborated = true;
  }
  RtlTop& t = *core->top;
  t.programs = programs;
  t.programs.resize(models.size(), nullptr);
  t.wait_cycles = wait_cycles;
  t.watchdog_cycles = watchdog_cycles;
  t.total_cycles = total_cycles;
  t.vcd = &vcd;
  t.vcd_on = !vcd_path.empty();
  t.vcd_start = vcd_start;
  t.vcd_end = vcd_end;
  t.error = nullptr;
  t.go.notify(sc_core::SC_ZERO_TIME);
  cycle::SimContext::start();
  core->idle = true;  // the clock thread waits for the next run again
  vcd.set_active(false);
  total_cycles += t.run_cycles;
  if (t.error) {
    if (core->cfg.cores == 0) {
      std::rethrow_exception(t.error);
    }
    reset_cut_cores(t);
    try {
      std::rethrow_exception(t.error);
    } catch (const ProgramError& e) {
      throw ProgramError(fmt::format("core {}: {}", t.error_core, e.what()));
    }
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

namespace {

// Limits of the Verilog (hw/README.md): fetch takes one instruction per 16 bytes of bus, and
// the acc buffer is written one element per cycle (micro-op, inp, wgt and out buffers take or
// give a whole beat of narrower elements).
void check_rtl_limits(const HwConfig& cfg) {
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
}

// The built model that implements `cfg` (one core's config), else an Error naming the models.
const rtl::BuiltModel& find_built_model(const HwConfig& cfg) {
  for (const auto& m : rtl::built_models()) {
    const HwConfig built =
        HwConfig::from_json_text(m.config_json, std::string("configs/") + m.name + ".json");
    if (same_hardware(built, cfg)) {
      return m;
    }
  }
  std::string built;
  for (const auto& n : RtlBackend::built_configs()) {
    built += (built.empty() ? "" : ", ") + n;
  }
  throw Error(
      fmt::format("rtl backend: no RTL model built for config {}; built: {} (set the CMake option "
                  "VTA_RTL_CONFIGS to add one)",
                  config_name(cfg), built.empty() ? "none" : built));
}

}  // namespace

RtlBackend::RtlBackend(const HwConfig& cfg, Dram& dram) : ContractBackend(cfg, dram) {
  m_impl = std::make_unique<Impl>();
  std::vector<RtlModel*> models;
  for (int k = 0; k < cores(); ++k) {
    const HwConfig& core_cfg = m_cfg.core_config(k);
    const std::string where = cfg.cores > 1 ? fmt::format("core {}: ", k) : "";
    try {
      check_rtl_limits(core_cfg);
      const rtl::BuiltModel& m = find_built_model(core_cfg);
      m_impl->model_names.emplace_back(m.name);
      // the VCD scope of the core (docs/multicore.md, "Traces")
      const std::string scope = m_cfg.cores != 0 ? fmt::format("core{}", k) : "vta_core";
      m_impl->models.push_back(m.make(core_cfg.bus_bytes, m_impl->vcd.context(), scope.c_str()));
    } catch (const Error& e) {
      throw Error(where + e.what());
    }
    m_impl->models.back()->reset();
    models.push_back(m_impl->models.back().get());
  }
  std::string key;
  for (const std::string& n : m_impl->model_names) {
    key += n + "\n";
  }
  m_impl->core = RtlCore::acquire(m_cfg, m_dram, models, key + m_cfg.to_json().dump());
}

RtlBackend::~RtlBackend() {
  if (!m_impl) {
    return;
  }
  m_impl->vcd.close();
  if (m_impl->core) {
    RtlCore::release(std::move(m_impl->core));
  }
  m_impl.reset();
}

void RtlBackend::set_watchdog_cycles(uint64_t cycles) {
  m_impl->watchdog_cycles = cycles;
}

const std::string& RtlBackend::model_config() const {
  return m_impl->model_names.front();
}

void RtlBackend::enable_vcd(const std::string& path, uint64_t start, uint64_t end) {
  std::vector<RtlModel*> models;
  for (const auto& m : m_impl->models) {
    models.push_back(m.get());
  }
  if (!m_impl->vcd.open(path, models)) {
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

// Core k's outcome after the run: an RTL error or a hang is a ProgramError (the core's model
// is reset after a hang); else its counters go to core_stats(k).
RunOutcome RtlBackend::core_outcome(int k, const LoadedProgram& program) {
  const HwConfig& cfg = m_cfg.core_config(k);
  const RtlCorePort& port = *m_impl->core->top->ports[static_cast<size_t>(k)];
  RtlModel& model = *m_impl->models[static_cast<size_t>(k)];
  const CoreStatus st = model.status();
  if (port.ending == Ending::kRtlError) {
    throw_rtl_error(cfg, program, st);
  }
  if (port.ending == Ending::kStuck) {
    return stuck_outcome(cfg, program, st);
  }
  if (port.ending == Ending::kNoProgress) {
    model.reset();  // a unit is stuck inside an instruction: the next run starts clean
    throw_hang_error(cfg, program, st, port.quiet_cycles, port.run_cycles);
  }
  Stats& stats = core_stats_mut(k);
  stats.timed = true;
  add_upstream_counters(stats, program, st);
  RunOutcome out;
  out.kind = port.ending == Ending::kTimeout ? RunOutcome::kTimeout : RunOutcome::kFinished;
  out.cycles = port.run_cycles;
  out.counters = timed_counters(st, port, k == 0 ? m_impl->core->top->memory.get() : nullptr);
  // Started instructions count (in flight at FINISH is dropped, sim/README.md section 1): the
  // finished ones plus the one a unit other than compute is still inside.
  for (size_t u = 0; u < 3; ++u) {
    const bool inside = u != 1 && ((st.units_running >> u) & 1u) != 0;
    out.completed[u] = st.unit_insns[u] + (inside ? 1u : 0u);
  }
  return out;
}

// The RTL checks only GEMM/ALU indices itself (they depend on the uop SRAM); every other range
// is checked before the run, up to the first FINISH. In a system, core 0 runs alone.
RunOutcome RtlBackend::execute(const LoadedProgram& program, uint64_t wait_cycles) {
  if (m_cfg.cores != 0) {
    return run_system({&program}, wait_cycles).front();
  }
  check_ranges_until_finish(m_cfg, m_dram, program);
  m_impl->run_cores({&program}, wait_cycles);
  return core_outcome(0, program);
}

// docs/multicore.md: the cores start in the same cycle; each one's counters go to its
// core_stats, the system's (cycles, contention, bursts per core) to stats().
std::vector<RunOutcome> RtlBackend::execute_cores(const std::vector<const LoadedProgram*>& programs,
                                                  uint64_t wait_cycles, uint64_t& makespan) {
  if (m_cfg.cores == 0) {
    return ContractBackend::execute_cores(programs, wait_cycles, makespan);
  }
  // Every core's counters are timed, an idle core's too: stats() carries the system's cycles
  // even when core 0 has no program in this run.
  for (int k = 0; k < cores(); ++k) {
    core_stats_mut(k).timed = true;
  }
  std::vector<RunOutcome> outs = run_system(programs, wait_cycles);
  makespan = m_impl->core->top->run_cycles;
  publish_system_counters(outs, programs);
  return outs;
}

// One run of a system; errors name the core.
std::vector<RunOutcome> RtlBackend::run_system(const std::vector<const LoadedProgram*>& programs,
                                               uint64_t wait_cycles) {
  for (size_t k = 0; k < programs.size(); ++k) {
    if (programs[k] != nullptr) {
      try {
        check_ranges_until_finish(m_cfg.core_config(static_cast<int>(k)), m_dram, *programs[k]);
      } catch (const ProgramError& e) {
        throw ProgramError(fmt::format("core {}: {}", k, e.what()));
      }
    }
  }
  const RtlTop& top = m_impl->run_cores(programs, wait_cycles);
  std::vector<RunOutcome> outs(programs.size());
  // An RTL error or a hang of one core ended the run: its error first, the others were cut off.
  const size_t first = top.error_core >= 0 ? static_cast<size_t>(top.error_core) : 0;
  for (size_t j = 0; j < programs.size(); ++j) {
    const size_t k = (first + j) % programs.size();
    if (programs[k] == nullptr) {
      continue;
    }
    try {
      outs[k] = core_outcome(static_cast<int>(k), *programs[k]);
    } catch (const ProgramError& e) {
      m_impl->reset_cut_cores(top);
      throw ProgramError(fmt::format("core {}: {}", k, e.what()));
    }
  }
  return outs;
}

// The system's counters of docs/multicore.md, named as the cycle backend names them.
void RtlBackend::publish_system_counters(const std::vector<RunOutcome>& outs,
                                         const std::vector<const LoadedProgram*>& programs) {
  std::vector<double> cycles(programs.size(), 0.0);
  for (size_t k = 0; k < programs.size(); ++k) {
    cycles[k] = programs[k] != nullptr ? static_cast<double>(outs[k].cycles) : 0.0;
  }
  cycle::add_system_counters(m_stats, *m_impl->core->top->interconnect, cycles);
}

}  // namespace vta

#include "vta/sim/backend_registry.h"
VTA_REGISTER_BACKEND(rtl, vta::RtlBackend, /*order=*/20, /*timed=*/true);
