#include "vta/sim/cycle/cycle_backend.h"

#include <map>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/cycle/sim_context.h"
#include "vta_core.h"

namespace vta {

using namespace vta::cycle;

// SystemC can free neither a kernel nor its modules, so a destroyed backend's core is parked in a
// pool under its hardware (the config's keys and the memory model) and the next backend of the
// same hardware takes it instead of building one: a process holds at most as many cores per
// hardware as it ever had backends of it alive at once, however many it creates one after the
// other. A core taken from the pool is rebound to its new backend's Dram and Stats and gets
// fresh SRAMs; every run starts from a reset core anyway (sim/README.md section 1), so results
// and cycles are those of a new core. Cores with a MemoryBinder's model are not pooled.
struct CycleBackend::Impl {
  // `model` null: `bind` supplies the memory model.
  Impl(const HwConfig& c, Dram& dram, Stats& s, const MemoryModelEntry* model,
       const MemoryBinder& bind, std::string key)
      : cfg(c), memory_model(model != nullptr ? model->name : ""), pool_key(std::move(key)) {
    const SimContext::Lock lock = ctx.activate();
    core = std::make_unique<VtaCore>("vta", cfg, dram, s, model, bind);
  }

  const HwConfig cfg;  // the core's own copy: it outlives the backend that built it
  std::string memory_model;
  std::string pool_key;  // "" = not pooled
  SimContext ctx;
  std::unique_ptr<VtaCore> core;
  uint64_t last_cycles = 0;
  bool idle = true;  // no run inside the kernel (false while one runs or after it broke off)

  // A parked core of this hardware rebound to `dram` and `s`, else a new one.
  static std::unique_ptr<Impl> acquire(const HwConfig& cfg, Dram& dram, Stats& s,
                                       const MemoryModelEntry* model, const MemoryBinder& bind);
  // Frees what is big and parks the core (or, if it cannot be reused, leaves it to its kernel).
  static void release(std::unique_ptr<Impl> impl);

  RunOutcome run(const LoadedProgram& program, uint64_t wait_cycles);
  uint64_t begin_run(const LoadedProgram& program);
  void unwind();
  void end_run(uint64_t run_cycles);
  RunOutcome stuck() const;
  TimedCounters counters() const;
};

namespace {

// The parked cores by hardware; never destroyed (destroying a core aborts SystemC).
template <class Core>
std::map<std::string, std::vector<std::unique_ptr<Core>>>& parked_cores() {
  static auto* pool = new std::map<std::string, std::vector<std::unique_ptr<Core>>>;
  return *pool;
}
std::mutex& pool_lock() {
  static std::mutex m;
  return m;
}

// A kernel that has simulated this many cycles is not reused: SystemC time (1 ps resolution,
// 64 bits) ends after 1.8e10 cycles of 1 ns, and a reused core must leave its next backend
// most of that.
constexpr uint64_t kMaxReuseCycles = uint64_t{1} << 33;

}  // namespace

std::unique_ptr<CycleBackend::Impl> CycleBackend::Impl::acquire(const HwConfig& cfg, Dram& dram,
                                                                Stats& s,
                                                                const MemoryModelEntry* model,
                                                                const MemoryBinder& bind) {
  if (model == nullptr) {
    return std::make_unique<Impl>(cfg, dram, s, model, bind, "");
  }
  std::string key = model->name + "\n" + cfg.to_json().dump();
  std::unique_ptr<Impl> impl;
  {
    const std::lock_guard<std::mutex> guard(pool_lock());
    auto& pool = parked_cores<Impl>();
    const auto it = pool.find(key);
    if (it != pool.end() && !it->second.empty()) {
      impl = std::move(it->second.back());
      it->second.pop_back();
    }
  }
  if (!impl) {
    return std::make_unique<Impl>(cfg, dram, s, model, bind, std::move(key));
  }
  const SimContext::Lock lock = impl->ctx.activate();
  VtaCore& c = *impl->core;
  c.stats_port.rebind(s);
  c.functional.rebind(dram, s);
  c.functional.allocate_storage();
  c.memory->rebind_dram(dram);
  impl->last_cycles = 0;
  return impl;
}

void CycleBackend::Impl::release(std::unique_ptr<Impl> impl) {
  const SimContext::Lock lock = impl->ctx.activate();
  VtaCore& c = *impl->core;
  c.functional.release_storage();
  c.fetch.release_storage();
  c.trace = TraceRecorder();
  if (c.memory) {
    c.memory->record_trace_events(false);
  }
  if (impl->pool_key.empty() || !impl->idle || now_cycle() >= kMaxReuseCycles) {
    // The modules are left to the kernel (SystemC cannot destroy a module with processes).
    (void)impl->core.release();
    return;
  }
  const std::lock_guard<std::mutex> guard(pool_lock());
  std::string key = impl->pool_key;
  parked_cores<Impl>()[key].push_back(std::move(impl));
}

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram)
    : CycleBackend(cfg, dram, cfg.memory.model) {}

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram, const std::string& memory_model)
    : ContractBackend(cfg, dram),
      m_impl(
          Impl::acquire(m_cfg, m_dram, m_stats, &find_memory_model(memory_model), MemoryBinder{})) {
  m_stats.timed = true;
}

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram, const MemoryBinder& bind_memory)
    : ContractBackend(cfg, dram),
      m_impl(Impl::acquire(m_cfg, m_dram, m_stats,
                           bind_memory ? nullptr : &find_memory_model(cfg.memory.model),
                           bind_memory)) {
  m_stats.timed = true;
}

CycleBackend::~CycleBackend() {
  // The kernel itself is never deleted (SimContext), nor its modules, since SystemC cannot
  // destroy a module with processes (it aborts): the core goes back to the pool.
  Impl::release(std::move(m_impl));
}

RunOutcome CycleBackend::execute(const LoadedProgram& program, uint64_t wait_cycles) {
  m_stats.timed = true;
  return m_impl->run(program, wait_cycles);
}

void CycleBackend::enable_trace(const std::string& path) {
  m_impl->core->trace.enable_trace(path, m_cfg.clock_mhz);
  if (m_impl->core->memory) {
    m_impl->core->memory->record_trace_events(true);
  }
}

void CycleBackend::set_trace_window(uint64_t start, uint64_t end) {
  m_impl->core->trace.set_trace_window(start, end);
}

void CycleBackend::enable_vcd(const std::string& path, uint64_t start, uint64_t end) {
  m_impl->core->trace.enable_vcd(path, start, end, m_cfg.clock_mhz, m_vcd_limit);
}

void CycleBackend::begin_trace_slice(const std::string& track, const std::string& name) {
  m_impl->core->trace.begin_slice(track, name);
}

void CycleBackend::end_trace_slice(const std::string& track, const Stats& counters) {
  m_impl->core->trace.end_slice(track, counters);
}

void CycleBackend::add_trace_slice(const std::string& track, const std::string& name,
                                   uint64_t cycles, const std::map<std::string, uint64_t>& args) {
  m_impl->core->trace.add_slice(track, name, cycles, nlohmann::json(args));
}

const std::string& CycleBackend::memory_model() const {
  return m_impl->memory_model;
}

uint64_t CycleBackend::last_run_cycles() const {
  return m_impl->last_cycles;
}

int32_t CycleBackend::acc_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core->functional.acc_lane(index, lane);
}

int32_t CycleBackend::out_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core->functional.out_lane(index, lane);
}

// Resets the core (sim/README.md section 1: only the SRAMs persist) and begins the run;
// returns its cycle 0 as an absolute cycle.
uint64_t CycleBackend::Impl::begin_run(const LoadedProgram& program) {
  VtaCore& c = *core;
  c.program.set(&program);
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    c.insn_q[s]->reset();
  }
  for (TokenQueue& t : c.tokens) {
    t.reset();
  }
  c.mem.reset();
  c.fetch.clear_stats();
  c.load.clear_stats();
  c.compute.clear_stats();
  c.compute.clear_compute_stats();
  c.store.clear_stats();
  c.mem.clear_stats();
  const uint64_t base = now_cycle() + 1;
  if (c.memory) {
    c.memory->reset(base);
    c.memory->reset_counters();
  }
  c.trace.begin_run(base);
  c.run.begin(base);
  return base;
}

// Lets every thread still inside the run unwind to its idle state.
void CycleBackend::Impl::unwind() {
  core->run.abort_all();
  for (int k = 0; k < 4 && sc_core::sc_pending_activity_at_current_time(); ++k) {
    SimContext::start(sc_core::SC_ZERO_TIME);
  }
}

// Unwinds the threads and writes the trace up to here (after an error or a deadlock, it shows
// who waited on whom); the run took `run_cycles` (later runs are traced after them).
void CycleBackend::Impl::end_run(uint64_t run_cycles) {
  unwind();
  if (core->memory && core->trace.tracing()) {
    std::vector<MemoryTraceEvent> events;
    core->memory->take_trace_events(events,
                                    [this](uint64_t c) { return core->trace.in_window(c, c); });
    for (MemoryTraceEvent& e : events) {
      core->trace.span_named(TraceRecorder::kDramTrack, e.cycle, e.cycle, std::move(e.name));
    }
  }
  core->program.set(nullptr);
  idle = true;
  const uint64_t now = now_cycle();
  core->trace.end_run(run_cycles);
  core->trace.flush(now);  // last: it throws when the VCD passed its size limit
}

RunOutcome CycleBackend::Impl::run(const LoadedProgram& program, uint64_t wait_cycles) {
  const SimContext::Lock lock = ctx.activate();  // one thread at a time in SystemC
  idle = false;
  const uint64_t base = begin_run(program);
  core->run.set_budget_end(wait_cycles != 0 ? base + wait_cycles : UINT64_MAX);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time limit = wait_cycles != 0 ? cycles(base + wait_cycles - now_cycle())
                                                  : sc_core::sc_max_time() - now - cycles(1u << 20);
  SimContext::start(limit, sc_core::SC_EXIT_ON_STARVATION);

  RunControl& run = core->run;
  if (run.error()) {
    end_run(now_cycle() + 1 - base);
    std::rethrow_exception(run.error());
  }
  RunOutcome out;
  if (run.finished()) {
    out.cycles = run.finish_cycle() + 1 - base;
    if (wait_cycles != 0 && out.cycles > wait_cycles) {
      out.kind = RunOutcome::kTimeout;
      out.cycles = wait_cycles;
    }
  } else if (sc_core::sc_pending_activity()) {
    // sc_start returns early once nothing is left before the limit: activity beyond it means
    // the run is still going (a deadlock leaves nothing at all).
    out.kind = RunOutcome::kTimeout;
    out.cycles = wait_cycles;
  } else {
    out = stuck();
    end_run(now_cycle() + 1 - base);
    return out;
  }
  end_run(out.cycles);
  last_cycles = out.cycles;
  out.counters = counters();
  for (size_t k = 0; k < 3; ++k) {
    out.completed[k] = out.counters->unit[k].insns;
  }
  return out;
}

// What every unit is doing when none can progress, for the contract's deadlock report.
RunOutcome CycleBackend::Impl::stuck() const {
  const VtaCore& c = *core;
  RunOutcome out;
  out.kind = RunOutcome::kStuck;
  const PipelineUnit* units[3] = {&c.load, &c.compute, &c.store};
  for (size_t k = 0; k < 3; ++k) {
    out.units[k] = units[k]->report();
  }
  for (size_t q = 0; q < 4; ++q) {
    out.tokens[q] = c.tokens[q].size();
  }
  out.detail = fmt::format(
      "cycle {}; fetch dispatched {} of {} instructions; instruction queues load={} compute={} "
      "store={}",
      c.run.rel(now_cycle()), c.fetch.next_index(), c.program.get().count(),
      c.insn_q[kStageLoad]->size(), c.insn_q[kStageCompute]->size(), c.insn_q[kStageStore]->size());
  return out;
}

// The run's counters (sim/README.md section 6), published by the contract's counter schema.
TimedCounters CycleBackend::Impl::counters() const {
  const VtaCore& c = *core;
  TimedCounters t;
  t.fetch_active = c.fetch.stats().active_cycles;
  t.fetch_stall_queue_full = c.fetch.stats().stall_queue_full_cycles;
  const PipelineUnit* units[3] = {&c.load, &c.compute, &c.store};
  for (size_t k = 0; k < 3; ++k) {
    const UnitStats& us = units[k]->stats();
    TimedCounters::Unit& u = t.unit[k];
    u.busy = us.busy_cycles;
    u.insns = us.insns;
    u.idle = us.idle_cycles;
    u.mem_stall = us.mem_stall_cycles;
    u.stall_token = us.stall_token_cycles;
    u.stall_full = us.stall_full_cycles;
  }
  for (int k = 0; k < kNumReadClients; ++k) {
    const MemClientStats& m = c.mem.read_stats(k);
    t.read[static_cast<size_t>(k)] =
        TimedCounters::Traffic{m.bytes, m.bursts, m.beats, m.latency_sum, m.latency_max};
  }
  const MemClientStats& w = c.mem.write_stats();
  t.write = TimedCounters::Traffic{w.bytes, w.bursts, w.beats, w.latency_sum, w.latency_max};
  t.gemm_active = c.compute.compute_stats().gemm_active_cycles;
  t.alu_active = c.compute.compute_stats().alu_active_cycles;
  if (c.memory) {
    c.memory->add_counters(t);
  }
  return t;
}

}  // namespace vta

#include "vta/sim/backend_registry.h"
VTA_REGISTER_BACKEND(cycle, vta::CycleBackend, /*order=*/30, /*timed=*/true);
