#include "vta/sim/cycle/cycle_backend.h"

#include <fmt/format.h>

#include "vta/sim/cycle/sim_context.h"
#include "vta/sim/insn_check.h"
#include "vta_core.h"

namespace vta {

using namespace vta::cycle;

namespace {

// Sets a named counter to `value` (for ratios, which do not add up over runs).
void set_counter(Stats& stats, const std::string& name, double value, const std::string& unit,
                 const std::string& description) {
  for (NamedCounter& c : stats.extra) {
    if (c.name == name) {
      c.value = value;
      return;
    }
  }
  stats.add(name, value, unit, description);
}

const double* counter_value(const Stats& stats, const std::string& name) {
  const NamedCounter* c = stats.find(name);
  return c != nullptr ? &c->value : nullptr;
}

}  // namespace

struct CycleBackend::Impl {
  Impl(const HwConfig& cfg, Dram& dram, Stats& stats, const MemoryBinder& bind) : ctx() {
    ctx.activate();
    core = std::make_unique<VtaCore>("vta", cfg, dram, stats, bind);
    codec = std::make_unique<IsaCodec>(cfg);
  }

  SimContext ctx;
  std::unique_ptr<VtaCore> core;
  std::unique_ptr<IsaCodec> codec;  // decodes the stream for the static checks
  uint64_t last_cycles = 0;

  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles);
  void prepare(uint32_t insn_phys, uint32_t insn_count);
  void unwind();
  [[noreturn]] void deadlock();
  void collect(uint64_t run_cycles);
};

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram) : CycleBackend(cfg, dram, {}) {}

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram, const MemoryBinder& bind_memory)
    : Backend(cfg, dram), m_impl(std::make_unique<Impl>(m_cfg, m_dram, m_stats, bind_memory)) {
  m_stats.timed = true;
}

CycleBackend::~CycleBackend() {
  m_impl->ctx.activate();
  // The kernel itself is never deleted (SimContext); the modules are left to it as well, since
  // SystemC cannot destroy a module with processes (it aborts). Free what is big.
  m_impl->core->shared.functional.release_storage();
  std::vector<uint8_t>().swap(m_impl->core->shared.fetched);
  std::vector<Insn>().swap(m_impl->core->shared.insns_decoded);
  m_impl->core->shared.trace = TraceRecorder();
  (void)m_impl->core.release();
}

RunStatus CycleBackend::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  m_stats.timed = true;
  return m_impl->run(insn_phys, insn_count, wait_cycles);
}

void CycleBackend::enable_trace(const std::string& path) {
  m_impl->core->shared.trace.enable_trace(path, m_cfg.clock_mhz);
}

void CycleBackend::enable_vcd(const std::string& path, uint64_t start, uint64_t end) {
  m_impl->core->shared.trace.enable_vcd(path, start, end);
}

uint64_t CycleBackend::last_run_cycles() const {
  return m_impl->last_cycles;
}

int32_t CycleBackend::acc_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core->shared.functional.acc_lane(index, lane);
}

int8_t CycleBackend::out_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core->shared.functional.out_lane(index, lane);
}

// Checks and decodes the stream as fsim's fetch does (same errors), and resets the core.
void CycleBackend::Impl::prepare(uint32_t insn_phys, uint32_t insn_count) {
  CoreShared& sh = core->shared;
  const uint8_t* p = checked_insn_stream(sh.dram, insn_phys, insn_count);
  if (insn_phys % kInsnBytes != 0) {
    throw ProgramError(
        fmt::format("fetch unit: the instruction stream address {:#x} is not {}-byte aligned",
                    insn_phys, kInsnBytes));
  }
  sh.insns_decoded.resize(insn_count);
  for (uint32_t k = 0; k < insn_count; ++k) {
    sh.insns_decoded[k] =
        codec->decode(IsaCodec::load_words(p + static_cast<size_t>(k) * kInsnBytes));
    check_insn_static(k, sh.insns_decoded[k]);
  }
  sh.insn_phys = insn_phys;
  sh.insn_count = insn_count;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    sh.insn_q[s]->reset();
  }
  for (TokenQueue& t : sh.tokens) {
    t.reset();
  }
  core->mem.reset();
  core->fetch.clear_stats();
  core->load.clear_stats();
  core->compute.clear_stats();
  core->compute.clear_compute_stats();
  core->store.clear_stats();
  core->mem.clear_stats();
}

// Lets every thread still inside the run unwind to its idle state.
void CycleBackend::Impl::unwind() {
  core->shared.run.abort_all();
  for (int k = 0; k < 4 && sc_core::sc_pending_activity_at_current_time(); ++k) {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
}

void CycleBackend::Impl::deadlock() {
  CoreShared& sh = core->shared;
  const uint64_t c = sh.run.rel(now_cycle());
  PipelineUnit* units[3] = {&core->load, &core->compute, &core->store};
  bool any_left = core->fetch.next_index() < sh.insn_count;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    any_left |= !sh.insn_q[s]->empty();
  }
  std::string state = fmt::format(
      "cycle {}; fetch dispatched {} of {} instructions; instruction queues load={} compute={} "
      "store={}; tokens l2g={} g2l={} s2g={} g2s={}",
      c, core->fetch.next_index(), sh.insn_count, sh.insn_q[kStageLoad]->size(),
      sh.insn_q[kStageCompute]->size(), sh.insn_q[kStageStore]->size(), sh.tokens[kL2G].size(),
      sh.tokens[kG2L].size(), sh.tokens[kS2G].size(), sh.tokens[kG2S].size());
  std::string msg;
  if (!any_left) {
    msg = fmt::format("fetch unit: no FINISH executed within insn_count = {} instructions ({})",
                      sh.insn_count, state);
  } else {
    msg = "deadlock: no unit can progress and FINISH has not executed:";
    for (PipelineUnit* u : units) {
      msg += " " + u->describe() + ";";
    }
    msg += " " + state;
  }
  unwind();
  sh.trace.flush(now_cycle());  // the trace up to the deadlock shows who waits on whom
  throw ProgramError(msg);
}

RunStatus CycleBackend::Impl::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  ctx.activate();
  CoreShared& sh = core->shared;
  ++sh.stats.runs;
  prepare(insn_phys, insn_count);
  const uint64_t base = now_cycle() + 1;
  if (core->dram_target) {
    core->dram_target->timing().reset(base);
  }
  sh.trace.set_run_offset(base, sh.stats.cycles);
  sh.run.begin(base);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time limit = wait_cycles != 0 ? cycles(base + wait_cycles - now_cycle())
                                                  : sc_core::sc_max_time() - now - cycles(1u << 20);
  sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);

  if (sh.run.error()) {
    unwind();
    sh.trace.flush(now_cycle());  // the trace up to the error helps to find it
    std::rethrow_exception(sh.run.error());
  }
  uint64_t run_cycles = 0;
  RunStatus status = RunStatus::kOk;
  if (sh.run.finished()) {
    run_cycles = sh.run.finish_cycle() + 1 - base;
    if (wait_cycles != 0 && run_cycles > wait_cycles) {
      run_cycles = wait_cycles;
      status = RunStatus::kTimeout;
    }
  } else if (sc_core::sc_pending_activity()) {
    // sc_start returns early once nothing is left before the limit: activity beyond it means
    // the run is still going (a deadlock leaves nothing at all).
    run_cycles = wait_cycles;
    status = RunStatus::kTimeout;
    unwind();
  } else {
    deadlock();
  }
  unwind();
  last_cycles = run_cycles;
  collect(run_cycles);
  sh.trace.flush(now_cycle());
  return status;
}

// Adds the run's unit counters to Stats (sim/README.md section 6).
void CycleBackend::Impl::collect(uint64_t run_cycles) {
  Stats& st = core->shared.stats;
  st.cycles += run_cycles;
  const auto cyc = [&](const std::string& name, double v, const std::string& desc) {
    st.add(name, v, "cycles", desc);
  };
  const FetchStats& f = core->fetch.stats();
  cyc("fetch.active_cycles", static_cast<double>(f.active_cycles),
      "cycles from run start to the last instruction dispatch");
  cyc("fetch.stall_queue_full_cycles", static_cast<double>(f.stall_queue_full_cycles),
      "cycles an instruction waited for room in its unit's instruction queue");
  const PipelineUnit* units[3] = {&core->load, &core->compute, &core->store};
  for (const PipelineUnit* u : units) {
    const Stage s = u->stage();
    const std::string n = stage_unit_name(s);
    const UnitStats& us = u->stats();
    cyc(n + ".busy_cycles", static_cast<double>(us.busy_cycles), "cycles executing instructions");
    cyc(n + ".idle_cycles", static_cast<double>(us.idle_cycles),
        "cycles with no instruction in the queue");
    for (int q : {kPopPrev[s], kPopNext[s]}) {
      if (q >= 0) {
        cyc(fmt::format("{}.stall_{}_cycles", n, kTokenQueueName[q]),
            static_cast<double>(us.stall_token_cycles[q]),
            fmt::format("cycles waiting for a token on {}", kTokenQueueName[q]));
      }
    }
    for (int q : {kPushPrev[s], kPushNext[s]}) {
      if (q >= 0) {
        cyc(fmt::format("{}.stall_{}_full_cycles", n, kTokenQueueName[q]),
            static_cast<double>(us.stall_full_cycles[q]),
            fmt::format("cycles waiting for room in the full queue {}", kTokenQueueName[q]));
      }
    }
    cyc(n + ".mem_stall_cycles", static_cast<double>(us.mem_stall_cycles),
        "busy cycles of DMA instructions spent waiting on memory");
  }
  uint64_t read_beats = 0, read_bytes = 0;
  for (int c = 0; c < kNumReadClients; ++c) {
    const MemClientStats& m = core->mem.read_stats(c);
    st.add(fmt::format("mem.{}.read_bytes", kReadClientName[c]), static_cast<double>(m.bytes),
           "bytes", fmt::format("bytes read by the {} client", kReadClientName[c]));
    st.add(fmt::format("mem.{}.bursts", kReadClientName[c]), static_cast<double>(m.bursts),
           "bursts", fmt::format("read bursts granted to the {} client", kReadClientName[c]));
    read_beats += m.beats;
    read_bytes += m.bytes;
  }
  const MemClientStats& w = core->mem.write_stats();
  st.add("mem.store.write_bytes", static_cast<double>(w.bytes), "bytes", "bytes written by STORE");
  st.add("mem.store.bursts", static_cast<double>(w.bursts), "bursts", "write bursts");
  st.add("mem.read_beats", static_cast<double>(read_beats), "beats", "read data beats");
  st.add("mem.write_beats", static_cast<double>(w.beats), "beats", "write data beats");
  st.add("mem.read_bytes", static_cast<double>(read_bytes), "bytes", "bytes read, all clients");
  const ComputeStats& cs = core->compute.compute_stats();
  cyc("gemm.active_cycles", static_cast<double>(cs.gemm_active_cycles),
      "uop iterations issued by non-reset GEMMs");
  cyc("alu.active_cycles", static_cast<double>(cs.alu_active_cycles), "ALU issue cycles");
  // Ratios over everything run since the last clear.
  const double total = st.cycles > 0 ? static_cast<double>(st.cycles) : 1.0;
  const double* gemm = counter_value(st, "gemm.active_cycles");
  const double* rb = counter_value(st, "mem.read_bytes");
  const double* wb = counter_value(st, "mem.store.write_bytes");
  set_counter(st, "gemm.utilization", gemm != nullptr ? *gemm / total : 0, "ratio",
              "gemm.active_cycles / cycles");
  set_counter(st, "mem.read_bandwidth", rb != nullptr ? *rb / total : 0, "bytes/cycle",
              "bytes read per cycle");
  set_counter(st, "mem.write_bandwidth", wb != nullptr ? *wb / total : 0, "bytes/cycle",
              "bytes written per cycle");
}

}  // namespace vta

#include "vta/sim/backend_registry.h"
VTA_REGISTER_BACKEND(cycle, vta::CycleBackend, /*order=*/30, /*timed=*/true);
